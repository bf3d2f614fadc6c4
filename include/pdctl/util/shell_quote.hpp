#pragma once
// The one place where argv becomes shell text. Every remote command (SSH) and every local command
// goes through join_command(): nothing user-supplied reaches a shell unquoted.

#include <string>
#include <string_view>
#include <vector>

namespace pdctl::util {

// Quotes one word for a POSIX shell so that `sh -c` sees exactly `word`.
// Safe words ([A-Za-z0-9_@%+=:,./-]) stay bare for readable plans; everything else is single-quoted
// with embedded ' written as '\''.
std::string shell_quote(std::string_view word);

// Joins argv into one shell command line, each word quoted by shell_quote().
std::string join_command(const std::vector<std::string>& argv);

}  // namespace pdctl::util
