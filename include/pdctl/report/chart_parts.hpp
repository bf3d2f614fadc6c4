#pragma once
// What the bench and sweep charts share: a round top for an axis, the SVG document and the HTML page
// around their content (one look, no script, network or external font), and safe reads of a record.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pdctl::report {

// 1, 2 or 5 times a power of ten, at least `value`; 1 for nothing to draw.
double nice_ceiling(double value);

// `body` in an <svg> of that size on white, with the shared classes (.title .note .axis .panel .tick)
// and `style` after them.
std::string svg_document(int width, int height, std::string_view style, const std::string& body);

// A page titled `title` with the shared table style; `left_column` ("first-child", "nth-child(2)")
// is the column of names, aligned left where numbers align right.
std::string html_page(const std::string& title, std::string_view left_column, const std::string& body);

// The array `key` of `object` by reference (value() would copy it), empty when it is not one.
const nlohmann::json& array_of(const nlohmann::json& object, const char* key);

}  // namespace pdctl::report
