// PD005: NCCL and Gloo of one group must use the same NIC, and the runbook pins every prefill and
// decode node to the same compute network ("pin NCCL/Gloo to the same NIC on all nodes", Kimi-K3
// cookbook). Two different values are almost always a profile copied from another cluster.

#include "pdctl/lint/socket_ifname.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

// NCCL within one role must name the NIC Gloo names. Lists and exclusions cannot be compared
// statically, so only single interface names are.
void check_within_role(const config::Role& role, FindingSink& sink) {
    const auto* nccl = detail::find_env(role, "NCCL_SOCKET_IFNAME");
    const auto* gloo = detail::find_env(role, "GLOO_SOCKET_IFNAME");
    if (!nccl || !gloo) return;
    const auto nccl_nic = single_interface(nccl->key, nccl->value);
    const auto gloo_nic = single_interface(gloo->key, gloo->value);
    if (nccl_nic.empty() || gloo_nic.empty() || nccl_nic == gloo_nic) return;
    sink.add(Severity::Error, role.name,
             role.name + " sets NCCL_SOCKET_IFNAME=" + detail::shown(*nccl) + " but GLOO_SOCKET_IFNAME=" +
                 detail::shown(*gloo) + ": the group's NCCL and Gloo traffic would take different networks",
             "set both to the same compute-network NIC")
        .location = gloo->where;
}

// Every sglang role must use the value of the first one that sets the variable (in file order).
void check_across_roles(const RuleInput& input, const char* key, FindingSink& sink) {
    const config::Role* reference = nullptr;
    const config::EnvVar* reference_var = nullptr;
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang) continue;
        const auto* var = detail::find_env(role, key);
        if (!var) continue;
        if (!reference) {
            reference = &role;
            reference_var = var;
            continue;
        }
        if (var->value == reference_var->value) continue;
        sink.add(Severity::Error, role.name,
                 role.name + " sets " + key + "=" + detail::shown(*var) + " but " + reference->name +
                     " sets " + detail::shown(*reference_var) + " (" + format_location(reference_var->where) +
                     "): prefill and decode nodes must use the same compute network",
                 std::string("use the same ") + key + " in every prefill and decode profile")
            .location = var->where;
    }
}

}  // namespace

void check_socket_ifname_mismatch(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles)
        if (role.kind == config::RoleKind::Sglang) check_within_role(role, sink);
    for (const char* key : kSocketIfnameKeys) check_across_roles(input, key, sink);
}

}  // namespace pdctl::lint
