// PD015: a program would advertise a node's management address. On a node with a compute_address,
// the ranks must reach each other (NCCL/Gloo rendezvous, Mooncake's transfer hostname, the bootstrap
// server, the router's worker URLs) over the compute network; an address meant for SSH in --host,
// --dist-init-addr, a router URL or an env value sends that traffic to the management network, or
// to nowhere when the networks are not routed (sglang PR #21704). It also flags
// SGLANG_HOST_IP given once for a multi-node group: every rank would advertise the same node's IP.

#include <algorithm>
#include <set>

#include "pdctl/lint/address.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {
namespace {

bool is_host_boundary(char c) {
    return c == '/' || c == '=' || c == ',' || c == ';' || c == '@' || c == ' ' || c == '[' || c == ']';
}

// Whether `host` appears in `text` as a whole host: "10.0.0.1", "10.0.0.1:5000", "http://10.0.0.1:30000",
// "KEY=10.0.0.1,10.0.0.2" — never as part of "10.0.0.10" or "a10.0.0.1".
bool mentions_host(std::string_view text, std::string_view host) {
    if (host.empty()) return false;
    for (auto at = text.find(host); at != std::string_view::npos; at = text.find(host, at + 1)) {
        const auto end = at + host.size();
        const bool starts = at == 0 || is_host_boundary(text[at - 1]);
        const bool ends = end == text.size() || text[end] == ':' || is_host_boundary(text[end]);
        if (starts && ends) return true;
    }
    return false;
}

std::vector<const config::Node*> nodes_with_two_networks(const config::Cluster& cluster) {
    std::vector<const config::Node*> out;
    for (const auto& node : cluster.nodes)
        if (!node.compute_address.empty() && !same_host(node.compute_address, node.address))
            out.push_back(&node);
    return out;
}

const char* kAdvertiseFix =
    "give peers the compute address: leave `host:` unset or 0.0.0.0 (pdctl binds and advertises each node's "
    "compute_address), and write compute addresses in args and env files";

void check_advertised(const RuleInput& input, const std::vector<const config::Node*>& nodes,
                      FindingSink& sink) {
    std::set<std::string> reported;  // role + what: an env value shared by every rank is reported once
    for (const auto& stage : input.plan.stages) {
        for (const auto& unit : stage.units) {
            for (const auto* node : nodes) {
                const auto says = [&](const std::string& what, const std::string& where) {
                    if (!reported.insert(stage.role + '\n' + what).second) return;
                    sink.add(Severity::Error, stage.role,
                             detail::describe_unit(unit) + " is given " + what + ": " + node->address +
                                 " is " + node->name + "'s management address; its compute address is " +
                                 node->compute_address + where,
                             kAdvertiseFix);
                };
                for (std::size_t i = 0; i < unit.program.argv.size(); ++i) {
                    const auto& word = unit.program.argv[i];
                    if (!mentions_host(word, node->address)) continue;
                    const bool value_of_flag = i > 0 && unit.program.argv[i - 1].rfind("--", 0) == 0;
                    says(value_of_flag ? unit.program.argv[i - 1] + " " + word : word, "");
                }
                for (const auto& env : unit.program.env) {
                    if (env.secret || !mentions_host(env.value, node->address)) continue;
                    says(env.key + "=" + env.value, " (env)");
                }
            }
        }
    }
}

void check_role_wide_host_ip(const RuleInput& input, FindingSink& sink) {
    for (const auto& role : input.cluster.roles) {
        if (role.kind != config::RoleKind::Sglang || role.nodes.size() < 2) continue;
        const auto* var = detail::find_env(role, "SGLANG_HOST_IP");
        if (!var) continue;
        // With a compute_address on every node, pdctl's per-node value replaces the profile's.
        const bool replaced = std::all_of(role.nodes.begin(), role.nodes.end(), [&](const std::string& name) {
            const auto* node = input.cluster.find_node(name);
            return node && !node->compute_address.empty();
        });
        const auto all = " for all " + std::to_string(role.nodes.size()) + " of its nodes: ";
        sink.add(replaced ? Severity::Warn : Severity::Error, role.name,
                 role.name + " sets SGLANG_HOST_IP=" + detail::shown(*var) + all +
                     (replaced ? "pdctl replaces it with each node's compute_address"
                               : "every rank would advertise that one address to Mooncake"),
                 "remove it from the profile and give each node a `compute_address:`: pdctl then sets "
                 "SGLANG_HOST_IP per node")
            .location = var->where;
    }
}

}  // namespace

void check_management_address(const RuleInput& input, FindingSink& sink) {
    if (const auto nodes = nodes_with_two_networks(input.cluster); !nodes.empty())
        check_advertised(input, nodes, sink);
    check_role_wide_host_ip(input, sink);
}

}  // namespace pdctl::lint
