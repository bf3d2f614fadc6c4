#pragma once
// The small string helpers every layer needs, in one place.

#include <string>
#include <string_view>
#include <vector>

namespace pdctl::util {

// Without leading and trailing blanks (space, tab, CR, LF).
std::string_view trim(std::string_view text);
// ASCII lower case (config keywords, ssh_config keys, versions): no locale.
std::string lower(std::string_view text);
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");
// Up to the first '\n' (all of it without one).
std::string first_line(std::string_view text);
// Lines without their '\n' (a last line without one included; no trailing empty line).
std::vector<std::string_view> lines(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator);
std::vector<std::string> split_trimmed(std::string_view text, char separator);
// Display columns of UTF-8 text: code points, which is what a terminal advances by for every glyph
// pdctl prints (the ✓/✗/… marks are one column each).
std::size_t display_width(std::string_view text);
// `text` followed by spaces up to `width` display columns (unchanged when it is already that wide).
std::string pad(const std::string& text, std::size_t width);
// Without the '/'s at its end, so that "http://r:8000/" and "http://r:8000" compare equal and a path
// can be appended with one '/'. "/" becomes "".
std::string without_trailing_slash(std::string_view text);
// http://host:port/anything -> http://host:port<path>: another endpoint of the same server.
std::string url_with_path(const std::string& url, std::string_view path);

}  // namespace pdctl::util
