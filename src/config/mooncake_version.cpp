#include "pdctl/config/mooncake_version.hpp"

#include <charconv>
#include <string_view>

namespace pdctl::config {
namespace {

// A run of digits at the front of `text`, consumed; nullopt when there is none or it overflows.
std::optional<int> take_number(std::string_view& text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return value;
}

}  // namespace

std::optional<MooncakeVersion> parse_mooncake_version(const std::string& text) {
    std::string_view rest(text);
    MooncakeVersion version;
    for (std::size_t i = 0; i < version.release.size(); ++i) {
        if (i > 0) {
            if (rest.empty() || rest.front() != '.') return std::nullopt;
            rest.remove_prefix(1);
        }
        const auto number = take_number(rest);
        if (!number) return std::nullopt;
        version.release[i] = *number;
    }
    if (rest.empty()) return version;
    constexpr std::string_view kPost = ".post";
    if (rest.substr(0, kPost.size()) != kPost) return std::nullopt;
    rest.remove_prefix(kPost.size());
    const auto post = take_number(rest);
    if (!post || !rest.empty()) return std::nullopt;
    version.post = *post;
    return version;
}

}  // namespace pdctl::config
