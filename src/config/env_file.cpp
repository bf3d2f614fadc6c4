#include "pdctl/config/env_file.hpp"

#include <algorithm>
#include <cctype>

#include "pdctl/config/detail/env_parser.hpp"

namespace pdctl::config {

namespace detail {

bool is_name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_valid_env_key(std::string_view key) {
    return !key.empty() && is_name_start(key[0]) && std::all_of(key.begin(), key.end(), is_name_char);
}

namespace {

constexpr const char* kNoSpacesHint = "write KEY=value with no spaces, as bash requires";

}  // namespace

EnvParser::EnvParser(const std::string& path, std::string_view text, const std::vector<EnvVar>& base,
                     const std::vector<std::string>& secret_keys, Diagnostics& diags)
    : text_(text), base_(base), secret_keys_(secret_keys), diags_(diags) {
    file_.path = path;
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);  // a BOM from a Windows editor
}

EnvFile EnvParser::run() {
    while (!at_end()) {
        skip_blanks();
        if (at_end()) break;
        if (peek() == '#') {
            read_comment();
            continue;
        }
        if (peek() != '\n') parse_assignment();
        skip_to_next_line();
    }
    return std::move(file_);
}

void EnvParser::advance() {
    if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
    } else {
        ++column_;
    }
    ++pos_;
}

void EnvParser::skip_blanks() {
    while (!at_end() && is_blank(peek())) advance();
}

// `# assumption: WHY` marks the next assignment as a site-specific value that the runbook does
// not give (`pdctl doctor --static` lists each one, PD014). Other comments are skipped.
void EnvParser::read_comment() {
    constexpr std::string_view kMarker = "# assumption:";
    const auto end = text_.find('\n', pos_);
    const auto line = text_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
    if (line.substr(0, kMarker.size()) == kMarker) {
        auto why = line.substr(kMarker.size());
        while (!why.empty() && (is_blank(why.front()) || why.front() == '\r')) why.remove_prefix(1);
        while (!why.empty() && (is_blank(why.back()) || why.back() == '\r')) why.remove_suffix(1);
        pending_assumption_ = std::string(why.empty() ? std::string_view("no reason given") : why);
    }
    skip_to_next_line();
}

void EnvParser::skip_to_next_line() {
    while (!at_end() && peek() != '\n') advance();
    if (!at_end()) advance();
}

void EnvParser::error(SourceLocation where, std::string message, std::string hint) {
    failed_ = true;
    diags_.error(std::move(where), key_, std::move(message), std::move(hint));
}

std::string EnvParser::shown(const std::string& fragment) const {
    return secret_ ? "" : " `" + fragment + "`";
}

bool EnvParser::is_secret_key(const std::string& key) const {
    return looks_secret(key) ||
           std::find(secret_keys_.begin(), secret_keys_.end(), key) != secret_keys_.end();
}

void EnvParser::parse_assignment() {
    key_.clear();
    failed_ = false;
    value_secret_ = false;
    if (text_.substr(pos_, 6) == "export" && is_blank(peek(6))) {
        for (int i = 0; i < 6; ++i) advance();
        skip_blanks();
    }
    const SourceLocation key_where = here();
    std::string key;
    while (!at_end() && peek() != '=' && peek() != '\n' && !is_blank(peek())) {
        key += peek();
        advance();
    }
    const bool valid_key = is_valid_env_key(key);
    if (valid_key) key_ = key;
    secret_ = valid_key && is_secret_key(key);
    if (peek() != '=') {
        // Never echo the line: for `HF_TOKEN hf_abc...` the rest of it is the secret.
        const SourceLocation gap = here();
        skip_blanks();
        if (peek() == '=') {
            error(gap, "spaces around `=` are not allowed", kNoSpacesHint);
        } else {
            error(key_where, "missing `=`", "each line is KEY=value, a # comment, or blank");
        }
        return;
    }
    if (!valid_key) {
        error(key_where, "invalid key `" + key + "`",
              "keys are letters, digits and `_`, not starting with a digit");
    }
    advance();  // '='
    std::string value = parse_unquoted_value();
    if (!failed_) check_rest_of_line(value.empty());
    // A key with a broken value is still defined, so later ${KEY} references do not cascade into
    // "undefined variable" errors; but as empty, since after an unterminated quote the value is the
    // rest of the file and would only produce more, misleading, errors.
    if (!valid_key) return;
    if (failed_) value.clear();
    store(std::move(key), std::move(value), key_where);
}

// After the value come blanks and a comment, or nothing. Anything else is a word bash would run.
void EnvParser::check_rest_of_line(bool value_empty) {
    if (at_end() || peek() == '\n') return;
    const SourceLocation gap = here();
    skip_blanks();
    if (at_end() || peek() == '\n' || peek() == '#') return;
    if (value_empty) {
        error(gap, "spaces around `=` are not allowed", kNoSpacesHint);
    } else {
        error(gap, "unquoted value contains whitespace",
              "quote the value: " + key_ + "=\"...\"; bash would run the rest as a command");
    }
}

void EnvParser::store(std::string key, std::string value, const SourceLocation& where) {
    EnvVar var{key, std::move(value), secret_ || value_secret_, where, std::move(pending_assumption_)};
    pending_assumption_.clear();
    if (const auto it = index_.find(key); it != index_.end()) {
        file_.vars[it->second] = std::move(var);  // like bash, the last assignment wins
        return;
    }
    index_.emplace(std::move(key), file_.vars.size());
    file_.vars.push_back(std::move(var));
}

}  // namespace detail

bool looks_secret(const std::string& key) {
    std::string upper(key);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    for (const char* word : {"TOKEN", "SECRET", "PASSWORD"}) {
        if (upper.find(word) != std::string::npos) return true;
    }
    return false;
}

EnvFile parse_env_file(const std::string& path, const std::string& content, const std::vector<EnvVar>& base,
                       const std::vector<std::string>& secret_keys, Diagnostics& diags) {
    return detail::EnvParser(path, content, base, secret_keys, diags).run();
}

}  // namespace pdctl::config
