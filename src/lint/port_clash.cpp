// PD012: two listeners on one host with the same port — the second fails with "Address already in
// use", often minutes into a start (the router's default --port 30000 is SGLang's too, see
// sglang_router's router_args.py; docs/doctor.md#pd012). Two prefill bootstrap servers are PD013's, with
// their own advice.

#include <algorithm>

#include "listeners.hpp"

namespace pdctl::lint {

void check_port_clash(const RuleInput& input, FindingSink& sink) {
    for (const auto& [key, listeners] : detail::listeners_by_address(input)) {
        if (listeners.size() < 2) continue;
        const auto bootstraps = std::count_if(listeners.begin(), listeners.end(),
                                              [](const detail::Listener& l) { return l.prefill_bootstrap; });
        if (bootstraps >= 2) continue;  // PD013
        const auto& [address, port] = key;
        const auto& last = listeners.back();
        const auto* role = input.cluster.find_role(last.unit->role);
        auto& finding = sink.add(Severity::Error, last.unit->role,
                                 last.unit->node + " (" + address + ") port " + std::to_string(port) +
                                     " is used by " + detail::describe(listeners),
                                 "give " + last.unit->role + " another port (`" + last.yaml_key +
                                     ":` on the role) or move it to another node");
        finding.node = last.unit->node;
        finding.location = role ? role->where : config::SourceLocation{};
    }
}

}  // namespace pdctl::lint
