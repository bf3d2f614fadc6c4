// PD010: a multi-node group bound to 127.0.0.1 (SGLang's default --host) cannot be reached from
// its other ranks, from decode (the bootstrap server binds --host) or from the router
// (SGLang's CommonKVBootstrapServer binds --host; sglang #10001; docs/doctor.md#pd010). pdctl binds the
// node's address by default, so this comes from `host:` or a --host in args/EXTRA_ARGS (the last one wins).

#include "pdctl/lint/address.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_host_loopback(const RuleInput& input, FindingSink& sink) {
    const auto severity = detail::loopback_severity(input.cluster);
    for (const auto& stage : input.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang || stage.units.size() < 2) continue;
        std::vector<std::string> bound;
        for (const auto& unit : stage.units) {
            const auto host = detail::bound_host(unit);
            if (is_loopback_host(host)) bound.push_back(unit.node + " " + host);
        }
        if (bound.empty()) continue;
        const auto* role = input.cluster.find_role(stage.role);
        const bool simulated = severity == Severity::Info;
        auto& finding = sink.add(severity, stage.role,
                                 stage.role + " is a " + std::to_string(stage.units.size()) +
                                     "-node group bound to loopback (--host on " + detail::join(bound) + ")" +
                                     (simulated ? "; expected on the local simulated cluster"
                                                : ": its other ranks, decode and the router cannot reach it"),
                                 "remove `host:` (pdctl then binds each node's address) or set `host: "
                                 "0.0.0.0`, and drop --host from "
                                 "args/EXTRA_ARGS");
        finding.location = role ? role->where : config::SourceLocation{};
    }
}

}  // namespace pdctl::lint
