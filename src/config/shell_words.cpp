#include "pdctl/config/shell_words.hpp"

namespace pdctl::config {

namespace {

bool is_word_separator(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Inside double quotes a backslash only escapes these, as in POSIX sh; elsewhere it stays.
bool escapable_in_double_quotes(char c) {
    return c == '"' || c == '\\' || c == '$' || c == '`';
}

}  // namespace

ShellWords split_shell_words(std::string_view text) {
    ShellWords result;
    std::string word;
    bool in_word = false;  // separate from word.empty(): '' is an empty word, not no word
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (is_word_separator(c)) {
            if (in_word) result.words.push_back(std::move(word));
            word.clear();
            in_word = false;
            ++i;
        } else if (c == '\'') {
            const auto close = text.find('\'', i + 1);
            if (close == std::string_view::npos) {
                result.error = "unterminated single quote";
                result.offset = i;
                return result;
            }
            word.append(text.substr(i + 1, close - i - 1));
            in_word = true;
            i = close + 1;
        } else if (c == '"') {
            const std::size_t open = i++;
            while (i < text.size() && text[i] != '"') {
                if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
                    i += 2;  // line continuation
                } else if (text[i] == '\\' && i + 1 < text.size() &&
                           escapable_in_double_quotes(text[i + 1])) {
                    word += text[i + 1];
                    i += 2;
                } else {
                    word += text[i++];
                }
            }
            if (i >= text.size()) {
                result.error = "unterminated double quote";
                result.offset = open;
                return result;
            }
            in_word = true;
            ++i;
        } else if (c == '\\') {
            if (i + 1 < text.size() && text[i + 1] == '\n') {
                i += 2;  // line continuation: joins the words around it
                continue;
            }
            if (i + 1 < text.size()) word += text[i + 1];
            in_word = true;
            i += 2;
        } else {
            word += c;
            in_word = true;
            ++i;
        }
    }
    if (in_word) result.words.push_back(std::move(word));
    return result;
}

}  // namespace pdctl::config
