#include "pdctl/report/xml_text.hpp"

namespace pdctl::report {

// An ANSI escape sequence (ESC [ ... final byte) goes whole; the other control characters XML 1.0
// forbids are dropped.
std::string xml_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0x1b) {
            if (i + 1 < text.size() && text[i + 1] == '[') {
                i += 2;
                while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
            }
            continue;
        }
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\n':
                out += "&#10;";
                break;
            case '\t':
                out += "&#9;";
                break;
            case '\r':
                break;
            default:
                if (c < 0x20) break;
                out += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace pdctl::report
