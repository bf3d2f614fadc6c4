#include "log_targets.hpp"

#include <algorithm>

#include "pdctl/util/strings.hpp"

namespace pdctl::ops {

// The positional ROLE names a `roles:` entry (every group) or one group (prefill-2).
plan::Scope logs_scope(const plan::Plan& plan, const LogsRequest& request, bool every_unit_when_unnamed) {
    plan::Scope scope = request.scope;
    if (!request.role.empty()) {
        const bool entry = std::any_of(plan.stages.begin(), plan.stages.end(),
                                       [&](const plan::Stage& s) { return s.config_role == request.role; });
        (entry || !plan.find_stage(request.role) ? scope.roles : scope.groups).push_back(request.role);
    }
    if (scope.empty() && !every_unit_when_unnamed)
        throw Failure(ExitCode::kUsage, "which role's logs?",
                      "name a role: pdctl logs ROLE, or --role ROLE / --group GROUP");
    return scope;
}

std::vector<LogTarget> log_targets(const Deployment& deployment, const plan::Plan& scoped,
                                   const LogsRequest& request) {
    const auto& cluster = deployment.cluster;
    std::vector<LogTarget> targets;
    for (const auto& stage : scoped.stages) {
        for (const auto& unit : stage.units) {
            if (!request.nodes.empty() &&
                std::find(request.nodes.begin(), request.nodes.end(), unit.node) == request.nodes.end())
                continue;
            if (request.rank >= 0 && unit.rank != request.rank) continue;
            targets.push_back({&unit, cluster.find_node(unit.node), stage.runtime, unit.node_dir});
        }
    }
    if (targets.empty()) {
        std::vector<std::string> names;
        for (const auto& stage : scoped.stages) names.push_back(stage.role);
        throw Failure(ExitCode::kUsage, "no unit of " + util::join(names, ", ") + " matches --node/--rank");
    }
    return targets;
}

}  // namespace pdctl::ops
