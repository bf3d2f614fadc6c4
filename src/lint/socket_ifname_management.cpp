// PD006: NCCL/Gloo traffic on the management network (runbook rule 4: compute network bond1, never
// the management network bond0) competes with SSH and monitoring and is far slower than the
// compute fabric. The management NICs are the cluster's `doctor: management_interfaces:` (the
// runbook's bond0 by default).

#include <algorithm>

#include "pdctl/lint/socket_ifname.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// How an interface spec reaches a management NIC, as the subject of "... is the management
// network": "bond0", or "the prefix `bond` also matches bond0, which"; "" when it does not.
std::string reaches(const InterfaceSpec& spec, const std::string& management) {
    if (spec.exclude) return {};  // an exclusion list never names what it selects
    for (const auto& item : spec.items) {
        if (item.name == management) return management;
        // NCCL matches unanchored names as prefixes: `bond` selects bond0 as well as bond1.
        if (!item.exact && management.rfind(item.name, 0) == 0)
            return "the prefix `" + item.name + "` also matches " + management + ", which";
    }
    return {};
}

}  // namespace

void check_socket_ifname_management(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang) continue;
        for (const char* key : kSocketIfnameKeys) {
            const auto* var = detail::find_env(role, key);
            if (!var) continue;
            const auto spec = parse_interface_spec(var->key, var->value);
            for (const auto& management : input.cluster.doctor.management_interfaces) {
                const auto how = reaches(spec, management);
                if (how.empty()) continue;
                sink.add(Severity::Error, role.name,
                         role.name + " sets " + key + "=" + detail::shown(*var) + ": " + how +
                             " is the management network; NCCL/Gloo traffic belongs on the compute network",
                         std::string("set ") + key + " to the compute-network NIC (bond1 in the runbook)")
                    .location = var->where;
                break;
            }
        }
    }
}

}  // namespace pdctl::lint
