#include "pdctl/report/chart_parts.hpp"

#include <fmt/format.h>

#include <cmath>

#include "pdctl/report/xml_text.hpp"

namespace pdctl::report {

double nice_ceiling(double value) {
    if (value <= 0) return 1;
    const double power = std::pow(10, std::floor(std::log10(value)));
    for (double step : {1.0, 2.0, 5.0, 10.0})
        if (step * power >= value) return step * power;
    return 10 * power;
}

std::string svg_document(int width, int height, std::string_view style, const std::string& body) {
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
        "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n"
        "<style>.title{{font-size:14px;font-weight:bold}}.note,.axis{{fill:#555}}.panel{{font-weight:bold}}"
        ".tick{{stroke:#e5e5e5}}{}</style>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{}</svg>\n",
        width, height, width, height, style, body);
}

std::string html_page(const std::string& title, std::string_view left_column, const std::string& body) {
    return fmt::format(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n"
        "<style>body{{font-family:'DejaVu Sans',sans-serif;margin:16px;color:#222}}h2{{font-size:16px}}"
        "table{{border-collapse:collapse;margin:12px 0}}td,th{{padding:3px 8px;border-bottom:1px solid #ddd;"
        "text-align:right;white-space:nowrap}}td:{},th:{}{{text-align:left}}</style></head>\n<body>\n{}"
        "</body></html>\n",
        xml_escape(title), left_column, left_column, body);
}

const nlohmann::json& array_of(const nlohmann::json& object, const char* key) {
    static const nlohmann::json empty = nlohmann::json::array();
    const auto it = object.find(key);
    return it != object.end() && it->is_array() ? *it : empty;
}

}  // namespace pdctl::report
