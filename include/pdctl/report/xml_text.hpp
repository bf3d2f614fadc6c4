#pragma once
// Text made safe for XML (the JUnit reports, the timeline's SVG and HTML): markup escaped, and what
// XML 1.0 cannot carry dropped (terminal escape sequences whole, other control characters).

#include <string>

namespace pdctl::report {

// For an attribute value or a text node; a line break becomes "&#10;" (kept in attributes).
std::string xml_escape(const std::string& text);

}  // namespace pdctl::report
