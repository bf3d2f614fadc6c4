#include "pdctl/util/strings.hpp"

#include <algorithm>

namespace pdctl::util {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
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

std::string first_line(std::string_view text) {
    return std::string(text.substr(0, text.find('\n')));
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

std::size_t display_width(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string pad(const std::string& text, std::size_t width) {
    const auto used = display_width(text);
    return used >= width ? text : text + std::string(width - used, ' ');
}

std::string without_trailing_slash(std::string_view text) {
    while (!text.empty() && text.back() == '/') text.remove_suffix(1);
    return std::string(text);
}

std::string url_with_path(const std::string& url, std::string_view path) {
    const auto scheme = url.find("://");
    const auto slash = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
    return (slash == std::string::npos ? url : url.substr(0, slash)) + std::string(path);
}

}  // namespace pdctl::util
