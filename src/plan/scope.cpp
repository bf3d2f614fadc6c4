#include "pdctl/plan/scope.hpp"

#include <algorithm>
#include <set>

#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::plan {
namespace {

const std::string& entry_of(const Stage& stage) {
    return stage.config_role.empty() ? stage.role : stage.config_role;
}

std::vector<std::string> names(const Plan& plan, bool groups) {
    std::vector<std::string> out;
    for (const auto& stage : plan.stages) {
        const auto& name = groups ? stage.role : entry_of(stage);
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    return out;
}

}  // namespace

ScopedPlan scope_plan(const Plan& plan, const Scope& scope, const std::string& verb) {
    ScopedPlan scoped{plan, {}};
    if (scope.empty()) return scoped;
    std::set<std::string> selected;
    for (const auto& role : scope.roles) {
        bool found = false;
        for (const auto& stage : plan.stages)
            if (entry_of(stage) == role) selected.insert(stage.role), found = true;
        if (!found)
            throw Failure(ExitCode::kUsage, "--role " + role + ": no such role",
                          "roles: " + util::join(names(plan, false), ", "));
    }
    for (const auto& group : scope.groups) {
        if (!plan.find_stage(group))
            throw Failure(
                ExitCode::kUsage, "--group " + group + ": no such group",
                "groups (a role's first group has the role's name): " + util::join(names(plan, true), ", "));
        selected.insert(group);
    }
    if (verb == "start" || verb == "restart") {
        // Plan order: a decode added here may itself be depended on by a later decode (none today).
        for (const auto& stage : plan.stages) {
            if (selected.count(stage.role) || stage.kind != config::RoleKind::Sglang ||
                stage.mode != "decode")
                continue;
            for (const auto& edge : stage.edges) {
                const auto* dependency = plan.find_stage(edge.role);
                if (!selected.count(edge.role) || !dependency || dependency->mode != "prefill") continue;
                selected.insert(stage.role);
                scoped.closure.push_back(stage.role + " " + verb + "s with " + edge.role +
                                         ": a decode must reconnect to a restarted prefill (sglang #16903)");
                break;
            }
        }
    }
    scoped.plan.stages.clear();
    for (const auto& stage : plan.stages)
        if (selected.count(stage.role)) scoped.plan.stages.push_back(stage);
    return scoped;
}

std::vector<std::string> nodes_in_scope(const Plan& plan, const Scope& scope) {
    std::vector<std::string> nodes;
    for (const auto& stage : scope_plan(plan, scope, "select").plan.stages)
        for (const auto& unit : stage.units)
            if (std::find(nodes.begin(), nodes.end(), unit.node) == nodes.end()) nodes.push_back(unit.node);
    return nodes;
}

}  // namespace pdctl::plan
