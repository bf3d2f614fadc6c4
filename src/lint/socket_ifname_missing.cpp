// PD004: without NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME a multi-node group lets NCCL and Gloo pick
// a NIC themselves; on multi-NIC hosts they pick differently per node and the group hangs at
// "Init torch distributed begin" or fails in Gloo connectFullMesh (sglang #3467, #958, #3226).
// A warning: the node's own environment may set them, which pdctl cannot see statically.

#include <algorithm>

#include "pdctl/lint/argv.hpp"
#include "pdctl/lint/socket_ifname.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_socket_ifname_missing(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang || role.nodes.size() < 2) continue;
        const auto options_env = container_env(role.container.options);
        std::vector<std::string> missing;
        for (const char* key : kSocketIfnameKeys) {
            const bool in_options = role.runtime == config::RuntimeKind::Docker &&
                                    std::any_of(options_env.begin(), options_env.end(),
                                                [&](const auto& pair) { return pair.first == key; });
            if (!detail::find_env(role, key) && !in_options) missing.push_back(key);
        }
        if (missing.empty()) continue;
        sink.add(Severity::Warn, role.name,
                 role.name + " runs on " + std::to_string(role.nodes.size()) + " nodes without " +
                     detail::join(missing, " and ") +
                     ": NCCL/Gloo choose a NIC per node and may pick the management network or a NIC the "
                     "other nodes cannot reach",
                 "set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME to the compute-network NIC (bond1 in the "
                 "runbook) in the role's profile")
            .location = detail::profile_location(role);
    }
}

}  // namespace pdctl::lint
