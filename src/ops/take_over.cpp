#include "pdctl/ops/take_over.hpp"

#include <algorithm>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/runtime/foreign_stop.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

// The container CLI of the node's roles ("" when they all run as processes), and their longest grace.
struct NodeRuntime {
    std::string cli;
    int grace = 0;
};

NodeRuntime runtime_on(const Deployment& deployment, const plan::Plan& plan, const std::string& node) {
    NodeRuntime found;
    for (const auto& stage : plan.stages)
        for (const auto& unit : stage.units) {
            if (unit.node != node) continue;
            if (found.cli.empty() && !stage.runtime.cli.empty()) found.cli = stage.runtime.cli;
            if (const auto* role = deployment.cluster.find_role(stage.role))
                found.grace = std::max(found.grace, role->stop_grace_seconds);
        }
    return found;
}

std::string node_dir(const Deployment& deployment, const std::string& node) {
    return config::node_state_dir(deployment.cluster.state_dir, deployment.cluster.name, node);
}

}  // namespace

std::size_t TakeoverScan::holders() const {
    std::size_t count = 0;
    for (const auto& node : nodes) count += node.holders.size();
    return count;
}

ExitCode TakeoverScan::code() const {
    const bool unknown =
        std::any_of(nodes.begin(), nodes.end(), [](const TakeoverNode& n) { return !n.error.empty(); });
    return unknown ? ExitCode::kUnreachable : ExitCode::kOk;
}

std::string describe(const doctor::ForeignHolder& holder) {
    const std::string what = holder.container ? "container " + holder.name + " (" + holder.image + ")"
                                              : "process " + holder.id + " " + holder.name;
    return what + " on " + holder.node + ": " + util::join(holder.reasons, ", ");
}

TakeoverScan scan_for_take_over(const Deployment& deployment, const plan::Scope& scope,
                                const std::string& verb) {
    return scan_for_take_over(deployment, plan::scope_plan(deployment.plan, scope, verb).plan);
}

TakeoverScan scan_for_take_over(const Deployment& deployment, const plan::Plan& plan) {
    TakeoverScan scan;
    for (const auto& node : deployment.cluster.nodes) {
        const bool planned =
            std::any_of(plan.stages.begin(), plan.stages.end(), [&](const plan::Stage& stage) {
                return std::any_of(stage.units.begin(), stage.units.end(),
                                   [&](const plan::Unit& unit) { return unit.node == node.name; });
            });
        if (planned) scan.nodes.push_back({node.name, {}, {}});
    }
    util::for_each_parallel(scan.nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        auto& entry = scan.nodes[i];
        const auto* node = deployment.cluster.find_node(entry.node);
        const auto answer = deployment.on_nodes->run(
            *node, doctor::takeover_probe_command(runtime_on(deployment, plan, entry.node).cli,
                                                  node_dir(deployment, entry.node)));
        if (!answer.transport_error.empty()) {
            entry.error = "unreachable: " + answer.transport_error;
            return;
        }
        const auto facts = doctor::parse_takeover_probe(answer.out);
        if (!facts.complete) {
            entry.error = "the take-over probe did not finish: " + exec::failure_reason(answer);
            return;
        }
        entry.holders = doctor::foreign_holders(deployment.cluster, plan, entry.node, facts);
    });
    return scan;
}

ExitCode stop_foreign_holders(const Deployment& deployment, const TakeoverScan& scan,
                              engine::Reporter& reporter) {
    std::vector<std::vector<std::string>> said(scan.nodes.size());
    std::vector<ExitCode> codes(scan.nodes.size(), ExitCode::kOk);
    util::for_each_parallel(scan.nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& entry = scan.nodes[i];
        const auto* node = deployment.cluster.find_node(entry.node);
        const auto on_node = runtime_on(deployment, deployment.plan, entry.node);
        const auto dir = node_dir(deployment, entry.node);
        const int grace = std::max(10, on_node.grace);
        for (const auto& holder : entry.holders) {
            const auto command =
                holder.container
                    ? runtime::foreign_container_stop_command(dir, on_node.cli, holder.id, holder.name, grace)
                    : runtime::foreign_process_stop_command(dir, holder.pid, grace);
            const auto answer = deployment.on_nodes->run(*node, command);
            if (answer.ok()) {
                said[i].push_back("take-over: stopped " + describe(holder));
            } else {
                said[i].push_back("take-over: could not stop " + describe(holder) + ": " +
                                  exec::failure_reason(answer));
                codes[i] = answer.transport_error.empty() ? ExitCode::kStopFailed : ExitCode::kUnreachable;
            }
        }
    });
    ExitCode code = ExitCode::kOk;
    for (std::size_t i = 0; i < scan.nodes.size(); ++i) {
        for (const auto& line : said[i]) reporter.note(line);
        if (codes[i] != ExitCode::kOk && code == ExitCode::kOk) code = codes[i];
    }
    return code;
}

}  // namespace pdctl::ops
