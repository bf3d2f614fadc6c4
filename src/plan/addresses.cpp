#include "pdctl/plan/role_kinds.hpp"

namespace pdctl::plan {

std::string routable_address(const config::Role& role, const config::Node& node) {
    // 0.0.0.0 / :: bind every interface; peers must then use the node's own address on the network
    // the ranks talk over (sglang PR #21704: never the management address when there are two).
    if (role.host.empty() || role.host == "0.0.0.0" || role.host == "::" || role.host == "[::]")
        return node.compute();
    return role.host;
}

int service_port(const config::Role& role) {
    if (role.port != 0) return role.port;
    switch (role.kind) {
        case config::RoleKind::MooncakeMaster:
            return kMooncakePort;
        case config::RoleKind::Sglang:
            return kSglangPort;
        case config::RoleKind::Router:
            return kRouterPort;
        case config::RoleKind::Generic:
            return role.health.port;
    }
    return 0;
}

}  // namespace pdctl::plan
