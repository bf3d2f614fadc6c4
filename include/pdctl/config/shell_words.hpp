#pragma once
// Splits a string into words with POSIX shell quoting rules ('single', "double", backslash), but
// without any expansion: how the old bash setup turned EXTRA_ARGS into server arguments.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pdctl::config {

struct ShellWords {
    std::vector<std::string> words;
    std::string error;       // empty = ok; e.g. "unterminated double quote"
    std::size_t offset = 0;  // where in the input the error starts
};

ShellWords split_shell_words(std::string_view text);

}  // namespace pdctl::config
