#include "pdctl/util/shell_quote.hpp"

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
    for (const auto& word : argv) {
        if (!out.empty()) out += ' ';
        out += shell_quote(word);
    }
    return out;
}

}  // namespace pdctl::util
