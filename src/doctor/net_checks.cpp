// NET003-NET005: the interfaces NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME select exist on the node, are
// up, and carry the node's compute_address. Without them NCCL and Gloo fail at "Init torch distributed
// begin" or in connectFullMesh, after the weights have loaded; an advertised compute address on another
// NIC sends the KV and rendezvous traffic somewhere else than NCCL's. Both variables often name the
// same NIC: one finding names both.

#include <fmt/format.h>

#include <map>

#include "checks.hpp"
#include "pdctl/lint/socket_ifname.hpp"
#include "text.hpp"

namespace pdctl::doctor::detail {
namespace {

struct Selected {
    std::vector<std::string> spelled;  // "NCCL_SOCKET_IFNAME=bond1 (prefill)"
    std::string role;
    std::vector<const NetInterface*> matches;
};

// Interface item as written → what it selects on this node; `^` exclusion lists select nothing to check.
std::map<std::string, Selected> selections(const NodeInput& input) {
    std::map<std::string, Selected> out;
    for (const auto& need : input.needs.ifnames) {
        const auto spec = lint::parse_interface_spec(need.key, need.value);
        if (spec.exclude) continue;
        for (const auto& item : spec.items) {
            auto& selected = out[item.name];
            selected.spelled.push_back(need.key);
            if (selected.role.empty()) selected.role = need.role;
            if (!selected.matches.empty()) continue;
            for (const auto& nic : input.facts.interfaces)
                if (item.exact ? nic.name == item.name : nic.name.starts_with(item.name))
                    selected.matches.push_back(&nic);
        }
    }
    return out;
}

// "NCCL_SOCKET_IFNAME selects" / "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select"
std::string who_selects(const Selected& selected) {
    return join(selected.spelled, " and ") + (selected.spelled.size() == 1 ? " selects" : " select");
}

std::string interface_names(const NodeFacts& facts) {
    std::vector<std::string> names;
    for (const auto& nic : facts.interfaces) names.push_back(nic.name);
    return names.empty() ? "none" : join(names);
}

}  // namespace

bool check_nic_present(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.ifnames.empty()) return false;
    for (const auto& [name, selected] : selections(input)) {
        if (!selected.matches.empty()) continue;
        sink.add(lint::Severity::Error, selected.role,
                 fmt::format("{} {}, but {} has no such interface (it has: {})", who_selects(selected), name,
                             input.needs.node.name, interface_names(input.facts)),
                 "name the compute-network interface the nodes really have (`ip -br link` on the node), the "
                 "same on every node");
    }
    return true;
}

bool check_nic_up(const NodeInput& input, lint::FindingSink& sink) {
    if (input.needs.ifnames.empty()) return false;
    for (const auto& [name, selected] : selections(input)) {
        if (selected.matches.empty()) continue;
        std::vector<std::string> down;
        bool up = false;
        for (const auto* nic : selected.matches) {
            up = up || nic->up();
            down.push_back(nic->name + " " + (nic->operstate.empty() ? "unknown" : nic->operstate));
        }
        if (up) continue;
        sink.add(
            lint::Severity::Error, selected.role,
            fmt::format("{} {}, but it is not up on {} ({})", who_selects(selected), name,
                        input.needs.node.name, join(down)),
            "bring the link up (`ip link set DEV up`; for a bond check its slaves and the switch), or point "
            "the variables at an interface that is up");
    }
    return true;
}

bool check_compute_address_on_nic(const NodeInput& input, lint::FindingSink& sink) {
    const auto& node = input.needs.node;
    if (input.needs.ifnames.empty() || node.compute_address.empty()) return false;
    if (!input.facts.addresses_known) {
        sink.add(lint::Severity::Info, "",
                 fmt::format("{}: `ip` is not installed, so whether compute_address {} sits on the NIC "
                             "NCCL/Gloo use was not checked",
                             node.name, node.compute_address),
                 "install iproute2 on the node");
        return true;
    }
    for (const auto& [name, selected] : selections(input)) {
        if (selected.matches.empty()) continue;  // NET003 reports it
        std::vector<std::string> found;
        bool on_it = false;
        for (const auto* nic : selected.matches) {
            for (const auto& address : nic->addresses) {
                on_it = on_it || address == node.compute_address;
                found.push_back(nic->name + " " + address);
            }
        }
        if (on_it) continue;
        std::string holder = "no interface of the node";
        for (const auto& nic : input.facts.interfaces)
            for (const auto& address : nic.addresses)
                if (address == node.compute_address) holder = nic.name;
        sink.add(lint::Severity::Error, selected.role,
                 fmt::format("{} {}, but {}'s compute_address {} is on {} ({} has: {})",
                             who_selects(selected), name, node.name, node.compute_address, holder, name,
                             found.empty() ? "no address" : join(found)),
                 "set compute_address to the address of the NCCL/Gloo interface, or point the variables at "
                 "the interface that has it: the ranks must advertise the network they talk over");
    }
    return true;
}

}  // namespace pdctl::doctor::detail
