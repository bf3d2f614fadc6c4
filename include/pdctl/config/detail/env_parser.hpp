#pragma once
// Internal to the config layer: the parser behind parse_env_file(). The bash subset that the old
// deployment's env/profile files used, parsed without running a shell: the files were `source`d,
// so every value must mean here exactly what bash made of it.
// Split in two files: env_file.cpp (lines, keys, storage) and env_value.cpp (quoting, expansion).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/env_file.hpp"

namespace pdctl::config::detail {

class EnvParser {
  public:
    EnvParser(const std::string& path, std::string_view text, const std::vector<EnvVar>& base,
              const std::vector<std::string>& secret_keys, Diagnostics& diags);
    EnvFile run();

  private:
    // Cursor over the text; columns count bytes, 1-based.
    bool at_end() const { return pos_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    void advance();
    SourceLocation here() const { return {file_.path, line_, column_}; }
    void skip_blanks();
    void skip_to_next_line();
    void read_comment();  // at '#': notes a `# assumption:` marker, then skips the line

    void error(SourceLocation where, std::string message, std::string hint = {});
    // " `fragment`" for a message, or "" while the key is a secret: its value never reaches a message.
    std::string shown(const std::string& fragment) const;
    bool is_secret_key(const std::string& key) const;

    // Lines (env_file.cpp).
    void parse_assignment();
    void check_rest_of_line(bool value_empty);
    void store(std::string key, std::string value, const SourceLocation& where);

    // Values (env_value.cpp).
    std::string parse_unquoted_value();
    bool parse_single_quoted(std::string& out);
    bool parse_double_quoted(std::string& out);
    std::string read_name();
    void skip_brace();
    void expand(std::string& out, bool in_double_quotes);
    void expand_with_default(std::string& out, const std::string& name, const SourceLocation& at,
                             bool in_double_quotes);
    bool parse_default(std::string& out, bool in_double_quotes);
    std::optional<std::string> lookup(const std::string& name, const SourceLocation& at,
                                      bool report_undefined);
    void report_undefined_variable(const std::string& name, const SourceLocation& at);
    void note_reference(const std::string& name);

    std::string_view text_;
    const std::vector<EnvVar>& base_;
    const std::vector<std::string>& secret_keys_;
    Diagnostics& diags_;
    EnvFile file_;
    std::map<std::string, std::size_t> index_;  // key -> position in file_.vars
    std::size_t pos_ = 0;
    int line_ = 1;
    int column_ = 1;

    // State of the line being parsed.
    std::string key_;  // "" until a valid key was read; the key path of its errors
    // The text of a `# assumption: WHY` comment, for the next assignment (EnvVar::assumption).
    std::string pending_assumption_;
    bool secret_ = false;        // the key is a secret: its value must not appear in messages
    bool value_secret_ = false;  // the value expanded a secret variable, so it is one too
    bool failed_ = false;        // this line already has an error
    int quiet_ = 0;              // > 0 while parsing a ${VAR:-default} whose default is not used
};

// A blank between words of an env line; '\r' counts so files with CRLF line ends parse like LF ones.
inline bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}
bool is_name_start(char c);
bool is_name_char(char c);
bool is_valid_env_key(std::string_view key);

}  // namespace pdctl::config::detail
