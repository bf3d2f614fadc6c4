// Values of env/profile files: quoting and ${VAR} expansion with bash's meaning.

#include <algorithm>
#include <cctype>

#include "pdctl/config/detail/env_parser.hpp"

namespace pdctl::config::detail {

namespace {

// Inside double quotes a backslash escapes only these, as in bash; before anything else it stays.
bool is_dq_escapable(char c) {
    return c == '"' || c == '\\' || c == '$' || c == '`';
}

constexpr const char* kExpansionForms = "supported forms: $VAR, ${VAR}, ${VAR:-default}";
constexpr const char* kLiteralDollar = "single-quote the value if `$` is meant literally";

}  // namespace

std::string EnvParser::parse_unquoted_value() {
    std::string out;
    while (!at_end() && peek() != '\n' && !is_blank(peek())) {
        const char c = peek();
        if (c == '\'') {
            if (!parse_single_quoted(out)) return out;
        } else if (c == '"') {
            if (!parse_double_quoted(out)) return out;
        } else if (c == '\\') {
            advance();
            if (at_end()) break;
            if (peek() != '\n') out += peek();  // backslash-newline continues the line
            advance();
        } else if (c == '$') {
            expand(out, false);
        } else if (c == '`') {
            error(here(), "command substitution is not supported", kLiteralDollar);
            return out;
        } else if (std::string_view(";&|<>()").find(c) != std::string_view::npos) {
            error(here(), "unquoted shell metacharacter" + shown(std::string(1, c)),
                  "quote the value: " + key_ + "=\"...\"");
            return out;
        } else {
            out += c;
            advance();
        }
    }
    return out;
}

bool EnvParser::parse_single_quoted(std::string& out) {
    const SourceLocation open = here();
    advance();
    while (!at_end() && peek() != '\'') {
        out += peek();
        advance();
    }
    if (at_end()) {
        error(open, "unterminated single quote", "close the value with `'`");
        return false;
    }
    advance();
    return true;
}

bool EnvParser::parse_double_quoted(std::string& out) {
    const SourceLocation open = here();
    advance();
    while (!at_end() && peek() != '"') {
        const char c = peek();
        if (c == '\\' && peek(1) == '\n') {
            advance();
            advance();
        } else if (c == '\\' && is_dq_escapable(peek(1))) {
            advance();
            out += peek();
            advance();
        } else if (c == '$') {
            expand(out, true);
        } else if (c == '`') {
            error(here(), "command substitution is not supported", "escape it as \\`");
            advance();
        } else {
            out += c;
            advance();
        }
    }
    if (at_end()) {
        error(open, "unterminated double quote", "close the value with `\"`");
        return false;
    }
    advance();
    return true;
}

std::string EnvParser::read_name() {
    std::string name;
    if (!is_name_start(peek())) return name;
    while (!at_end() && is_name_char(peek())) {
        name += peek();
        advance();
    }
    return name;
}

// Skips the rest of a malformed ${...} so that parsing resumes after it.
void EnvParser::skip_brace() {
    while (!at_end() && peek() != '}' && peek() != '\n' && peek() != '"') advance();
    if (peek() == '}') advance();
}

void EnvParser::expand(std::string& out, bool in_double_quotes) {
    const SourceLocation at = here();
    advance();  // '$'
    const char c = peek();
    if (c == '{') {
        advance();
        const std::string name = read_name();
        if (name.empty()) {
            error(at, "bad substitution", kExpansionForms);
            skip_brace();
        } else if (peek() == '}') {
            advance();
            out += lookup(name, at, true).value_or("");
        } else if (peek() == ':' && peek(1) == '-') {
            advance();
            advance();
            expand_with_default(out, name, at, in_double_quotes);
        } else {
            error(at, "unsupported expansion" + shown("${" + name + std::string(1, peek()) + "..."),
                  kExpansionForms);
            skip_brace();
        }
    } else if (is_name_start(c)) {
        const std::string name = read_name();
        out += lookup(name, at, true).value_or("");
    } else if (c == '(') {
        error(at, "command substitution is not supported", kLiteralDollar);
        skip_brace();
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               std::string_view("@*#?!$-").find(c) != std::string_view::npos) {
        error(at, "special parameter" + shown(std::string("$") + c) + " is not supported", kLiteralDollar);
        advance();
    } else {
        out += '$';  // a lone `$` stays literal, as in bash
    }
}

// ${NAME:-default}: the default applies when NAME is unset or empty, as in bash.
void EnvParser::expand_with_default(std::string& out, const std::string& name, const SourceLocation& at,
                                    bool in_double_quotes) {
    const auto value = lookup(name, at, false);
    const bool use_default = !value || value->empty();
    // Like bash, an unused default is never evaluated, so its undefined variables are no error.
    if (!use_default) ++quiet_;
    std::string fallback;
    const bool closed = parse_default(fallback, in_double_quotes);
    if (!use_default) --quiet_;
    if (!closed) error(at, "unterminated `${`", "close it with `}`");
    out += use_default ? fallback : *value;
}

bool EnvParser::parse_default(std::string& out, bool in_double_quotes) {
    while (!at_end()) {
        const char c = peek();
        if (c == '}') {
            advance();
            return true;
        }
        if (c == '\n' && !in_double_quotes) return false;
        if (c == '"') {
            if (in_double_quotes || !parse_double_quoted(out)) return false;
        } else if (c == '\'' && !in_double_quotes) {
            if (!parse_single_quoted(out)) return false;
        } else if (c == '\\') {
            advance();
            if (!at_end()) {
                out += peek();
                advance();
            }
        } else if (c == '$') {
            expand(out, in_double_quotes);
        } else {
            out += c;
            advance();
        }
    }
    return false;
}

// Earlier keys of this file first, then the last definition in `base`.
std::optional<std::string> EnvParser::lookup(const std::string& name, const SourceLocation& at,
                                             bool report_undefined) {
    if (const auto it = index_.find(name); it != index_.end()) {
        note_reference(name);
        value_secret_ = value_secret_ || file_.vars[it->second].secret;
        return file_.vars[it->second].value;
    }
    for (auto it = base_.rbegin(); it != base_.rend(); ++it) {
        if (it->key != name) continue;
        note_reference(name);
        value_secret_ = value_secret_ || it->secret;
        return it->value;
    }
    if (report_undefined && quiet_ == 0) report_undefined_variable(name, at);
    return std::nullopt;
}

void EnvParser::note_reference(const std::string& name) {
    if (std::find(file_.referenced.begin(), file_.referenced.end(), name) == file_.referenced.end())
        file_.referenced.push_back(name);
}

void EnvParser::report_undefined_variable(const std::string& name, const SourceLocation& at) {
    if (secret_) {
        error(at, "undefined variable, not named because it is part of a secret value", kLiteralDollar);
        return;
    }
    std::vector<std::string> known;
    for (const auto& var : file_.vars) known.push_back(var.key);
    for (const auto& var : base_) known.push_back(var.key);
    std::string hint = did_you_mean(name, known);
    if (hint.empty())
        hint = "define it earlier in this file or in an env_files file, or write ${" + name + ":-default}";
    error(at, "undefined variable `" + name + "`", std::move(hint));
}

}  // namespace pdctl::config::detail
