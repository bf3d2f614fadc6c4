#include "text.hpp"

#include <fmt/format.h>

namespace pdctl::doctor::detail {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const auto end = text.find('\n');
        out.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto end = text.find(separator, start);
        out.emplace_back(
            text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return out;
        start = end + 1;
    }
}

std::vector<std::string> split_trimmed(std::string_view text, char separator) {
    auto out = split(text, separator);
    for (auto& item : out) item = std::string(trim(item));
    return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += separator;
        out += items[i];
    }
    return out;
}

std::string format_gib(long long kib) {
    const double gib = static_cast<double>(kib) / (1024.0 * 1024.0);
    return gib < 10 ? fmt::format("{:.1f} GiB", gib) : fmt::format("{:.0f} GiB", gib);
}

}  // namespace pdctl::doctor::detail
