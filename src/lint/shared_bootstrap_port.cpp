// PD013: two prefills on one node with the same bootstrap port — Mooncake's SGLang guide says
// "Multiple prefills on the same node are not supported due to bootstrap server port conflicts";
// a distinct bootstrap port per prefill, passed to the router, makes it work (docs/doctor.md#pd013). pdctl
// passes each prefill's bootstrap_port to the router itself.

#include "listeners.hpp"

namespace pdctl::lint {

void check_shared_bootstrap_port(const RuleInput& input, FindingSink& sink) {
    for (const auto& [key, listeners] : detail::listeners_by_address(input)) {
        std::vector<detail::Listener> prefills;
        for (const auto& listener : listeners)
            if (listener.prefill_bootstrap) prefills.push_back(listener);
        if (prefills.size() < 2) continue;
        const auto& [address, port] = key;
        const auto& last = prefills.back();
        std::vector<std::string> names;
        for (const auto& p : prefills) names.push_back(p.unit->role);
        const auto* role = input.cluster.find_role(last.unit->role);
        auto& finding = sink.add(
            Severity::Error, last.unit->role,
            "prefills " + detail::join(names, " and ") + " both run their bootstrap server on " +
                last.unit->node + " (" + address + ") port " + std::to_string(port) +
                (listeners.size() > prefills.size() ? "; also used by " + detail::describe(listeners) : "") +
                ": the second cannot start, and decode would fetch KV from the wrong prefill",
            "give each prefill on the node its own `bootstrap_port:` (e.g. " + std::to_string(port + 1) +
                "); pdctl passes it to the router");
        finding.node = last.unit->node;
        finding.location = role ? role->where : config::SourceLocation{};
    }
}

}  // namespace pdctl::lint
