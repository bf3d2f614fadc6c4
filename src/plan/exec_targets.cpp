#include "pdctl/plan/exec_targets.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::plan {
namespace {

std::vector<std::string> node_names(const Plan& plan) {
    std::vector<std::string> names;
    for (const auto& node : plan.nodes) names.push_back(node.name);
    return names;
}

std::size_t node_index(const Plan& plan, const std::string& name) {
    for (std::size_t i = 0; i < plan.nodes.size(); ++i)
        if (plan.nodes[i].name == name) return i;
    return plan.nodes.size();
}

}  // namespace

std::vector<ExecTarget> exec_targets(const Plan& plan, const ExecSelection& selection,
                                     const std::vector<std::string>& argv, Duration timeout) {
    if (argv.empty())
        throw Failure(ExitCode::kUsage, "exec needs a command", "pdctl exec --role decode -- nvidia-smi -L");
    if (selection.rank && selection.scope.empty())
        throw Failure(ExitCode::kUsage, "--rank needs --role or --group: ranks are counted per group",
                      "pdctl exec --role prefill --rank 2 -- ...");
    const auto all_nodes = node_names(plan);
    for (const auto& name : selection.nodes)
        if (node_index(plan, name) == plan.nodes.size())
            throw Failure(ExitCode::kUsage, "--node " + name + ": no such node",
                          config::did_you_mean(name, all_nodes).empty()
                              ? "nodes: " + util::join(all_nodes, ", ")
                              : config::did_you_mean(name, all_nodes));
    const std::set<std::string> only(selection.nodes.begin(), selection.nodes.end());
    const auto wanted = [&](const std::string& node) { return only.empty() || only.count(node); };

    // The units in scope (every unit when nothing names a role or group).
    std::vector<std::pair<const Stage*, const Unit*>> units;
    const auto scoped = scope_plan(plan, selection.scope, "status");
    for (const auto& stage : scoped.plan.stages) {
        const auto* original = plan.find_stage(stage.role);
        for (const auto& unit : original->units)
            if ((!selection.rank || unit.rank == *selection.rank) && wanted(unit.node))
                units.emplace_back(original, &unit);
    }
    std::stable_sort(units.begin(), units.end(), [&](const auto& a, const auto& b) {
        return node_index(plan, a.second->node) < node_index(plan, b.second->node);
    });

    std::vector<ExecTarget> targets;
    if (!selection.in_container) {
        // On the host: each node once. Without a role or group that is every (wanted) node, units or not.
        std::set<std::string> seen;
        auto add = [&](const std::string& node) {
            if (!seen.insert(node).second) return;
            targets.push_back({node, "", node, exec::Command{argv, "", timeout}});
        };
        if (selection.scope.empty()) {
            for (const auto& node : plan.nodes)
                if (wanted(node.name)) add(node.name);
        } else {
            for (const auto& [stage, unit] : units) add(unit->node);
        }
    } else {
        std::map<std::string, int> per_node;
        for (const auto& [stage, unit] : units) ++per_node[unit->node];
        for (const auto& [stage, unit] : units) {
            if (stage->runtime.kind != config::RuntimeKind::Docker)
                throw Failure(ExitCode::kUsage,
                              "--in-container: " + stage->role +
                                  " runs as a process (runtime: process), not in a "
                                  "container",
                              "leave out --in-container to run the command on its nodes");
            std::vector<std::string> command = {stage->runtime.cli, "exec", unit->name};
            command.insert(command.end(), argv.begin(), argv.end());
            const auto label = per_node[unit->node] > 1 ? unit->node + ":" + unit->name : unit->node;
            targets.push_back({unit->node, unit->name, label, exec::Command{command, "", timeout}});
        }
    }
    if (targets.empty())
        throw Failure(ExitCode::kUsage, "exec: the selection matches no node",
                      "--node narrows --role/--group to the nodes they run on; see `pdctl plan`");
    return targets;
}

}  // namespace pdctl::plan
