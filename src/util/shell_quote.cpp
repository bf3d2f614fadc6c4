#include "pdctl/util/shell_quote.hpp"

#include <algorithm>
#include <array>

namespace pdctl::util {
namespace {

bool is_safe_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
        case '_':
        case '@':
        case '%':
        case '+':
        case '=':
        case ':':
        case ',':
        case '.':
        case '/':
        case '-':
            return true;
        default:
            return false;
    }
}

// Words a shell reads as syntax when they stand first (POSIX, bash and zsh reserved words).
bool is_reserved_word(std::string_view word) {
    static constexpr std::array<std::string_view, 22> kReserved = {
        "case",   "do",     "done",    "elif",  "else",      "esac",   "fi",       "for",
        "if",     "in",     "then",    "until", "while",     "select", "function", "time",
        "coproc", "repeat", "foreach", "end",   "nocorrect", "noglob"};
    return std::find(kReserved.begin(), kReserved.end(), word) != kReserved.end();
}

// The first word must name the program: bare, `A=b` would be an assignment, `if` syntax, and zsh
// expands a leading `=` to a path.
std::string quote_command_name(std::string_view word) {
    const bool needs_quotes = word.find('=') != std::string_view::npos || is_reserved_word(word);
    if (!needs_quotes) return shell_quote(word);
    std::string quoted = shell_quote(word);
    if (quoted.front() != '\'' || quoted.size() < 2) quoted = "'" + quoted + "'";  // was bare: no ' inside
    return quoted;
}

}  // namespace

std::string shell_quote(std::string_view word) {
    bool safe = !word.empty();
    for (char c : word) safe = safe && is_safe_char(c);
    // `=` is safe inside a word, but a leading one is fine too; a leading `-` is only an argv concern.
    if (safe) return std::string(word);

    std::string out;
    out.reserve(word.size() + 2);
    out += '\'';
    for (char c : word) {
        if (c == '\'') {
            out += "'\\''";  // close, escaped quote, reopen
        } else {
            out += c;
        }
    }
    out += '\'';
    return out;
}

std::string join_command(const std::vector<std::string>& argv) {
    std::string out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) out += ' ';
        out += i == 0 ? quote_command_name(argv[i]) : shell_quote(argv[i]);
    }
    return out;
}

}  // namespace pdctl::util
