#include "pdctl/lint/address.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "pdctl/util/strings.hpp"

namespace pdctl::lint {
namespace {

using util::lower;

std::string_view unbracket(std::string_view host) {
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
    return host;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
    const std::string h = lower(unbracket(host));
    return h.rfind("127.", 0) == 0 || h == "localhost" || h.ends_with(".localhost") || h == "::1" ||
           h == "0:0:0:0:0:0:0:1" || h == "ip6-localhost" || h == "ip6-loopback";
}

bool is_wildcard_host(std::string_view host) {
    const std::string_view h = unbracket(host);
    return h == "0.0.0.0" || h == "::" || h == "0:0:0:0:0:0:0:0";
}

bool same_host(std::string_view a, std::string_view b) {
    return lower(unbracket(a)) == lower(unbracket(b));
}

std::optional<HttpUrl> parse_http_url(std::string_view url) {
    HttpUrl parsed;
    int default_port = 0;
    if (url.rfind("http://", 0) == 0) {
        url.remove_prefix(7);
        default_port = 80;
    } else if (url.rfind("https://", 0) == 0) {
        url.remove_prefix(8);
        default_port = 443;
    } else {
        return std::nullopt;
    }
    const auto authority = url.substr(0, url.find_first_of("/?#"));
    std::string_view host = authority;
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {  // [v6]:port
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        host = authority.substr(1, close - 1);
        const auto rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return std::nullopt;
            port = rest.substr(1);
        }
    } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    if (host.empty()) return std::nullopt;
    parsed.host = std::string(host);
    parsed.port = default_port;
    if (!port.empty()) {
        const auto [ptr, error] = std::from_chars(port.data(), port.data() + port.size(), parsed.port);
        if (error != std::errc() || ptr != port.data() + port.size()) return std::nullopt;
    }
    return parsed;
}

}  // namespace pdctl::lint
