#pragma once
// Small string helpers shared by the doctor's parsers and checks.

#include <string>
#include <string_view>
#include <vector>

namespace pdctl::doctor::detail {

std::string_view trim(std::string_view text);
// Lines without their '\n' (a last line without one included; no trailing empty line).
std::vector<std::string_view> lines(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator);
std::vector<std::string> split_trimmed(std::string_view text, char separator);
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");
// "1.5 GiB", "73 GiB": sizes for messages.
std::string format_gib(long long kib);

}  // namespace pdctl::doctor::detail
