// PORT001: every port a unit about to start will bind is free on its node. A leftover server, the old
// script's container or another program on the port makes the new rank die at bind time, or, worse, a
// gate answered by the old process passes for the new one.

#include <fmt/format.h>

#include "checks.hpp"
#include "pdctl/lint/address.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {
namespace {

bool every_interface(const std::string& host) {
    return host.empty() || lint::is_wildcard_host(host);
}

std::string shown_address(const TcpListener& listener) {
    return listener.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", listener.host, listener.port)
                                                        : fmt::format("{}:{}", listener.host, listener.port);
}

}  // namespace

bool binds_collide(const std::string& host, int port, const TcpListener& listener) {
    return port == listener.port &&
           (every_interface(host) || every_interface(listener.host) || lint::same_host(host, listener.host));
}

bool check_ports_free(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.ports.empty()) return false;
    const auto& node = input.needs.node.name;
    if (!input.facts.listeners_known) {
        sink.add(lint::Severity::Info, "",
                 fmt::format("{}: `ss` is not installed, so free ports were not checked", node),
                 "install iproute2 on the node");
        return true;
    }
    for (const auto& need : input.needs.ports) {
        for (const auto& listener : input.facts.listeners) {
            if (!binds_collide(need.host, need.port, listener)) continue;
            sink.add(
                lint::Severity::Error, "",
                fmt::format("port {} that {} binds on {} is taken: {} listens on {}", need.port, need.unit,
                            node, listener.holder.empty() ? "a process" : listener.holder,
                            shown_address(listener)),
                "stop what holds it (a leftover of an earlier deployment: `pdctl stop` with its config, or "
                "the old script's container: `docker ps` on the node), or move the role to another port");
            break;  // one holder per port is enough to act on
        }
    }
    return true;
}

}  // namespace pdctl::doctor::detail
