#pragma once
// Host and URL helpers for the network rules. Pure string work: nothing is resolved, so a
// hostname is only ever compared with the same hostname.

#include <optional>
#include <string>
#include <string_view>

namespace pdctl::lint {

// 127.0.0.0/8, ::1 and the usual loopback names: reachable from this host only.
bool is_loopback_host(std::string_view host);
// 0.0.0.0 / :: — binds every interface; peers reach the node at its own address.
bool is_wildcard_host(std::string_view host);
// Same host text, ignoring case and IPv6 brackets.
bool same_host(std::string_view a, std::string_view b);

struct HttpUrl {
    std::string host;  // without IPv6 brackets
    int port = 0;      // explicit, or the scheme's default
};

// http://host[:port][/path] or https://...; nullopt for anything else.
std::optional<HttpUrl> parse_http_url(std::string_view url);

}  // namespace pdctl::lint
