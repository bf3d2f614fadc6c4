#include "pdctl/ops/stack.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::ops {

ExitCode stack_exit_code(const std::vector<RankDump>& dumps) {
    bool unreachable = false, failed = false;
    for (const auto& dump : dumps) {
        unreachable = unreachable || !dump.result.transport_error.empty();
        failed = failed || !dump.ok();
    }
    if (unreachable) return ExitCode::kUnreachable;
    return failed ? ExitCode::kCommandFailed : ExitCode::kOk;
}

namespace {

struct StackTarget {
    const plan::Stage* stage;
    const plan::Unit* unit;
    exec::Command command;
};

}  // namespace

std::vector<RankDump> dump_stacks(const Deployment& deployment, const plan::Scope& scope) {
    const auto scoped = plan::scope_plan(deployment.plan, scope, "stack");
    std::vector<StackTarget> targets;
    for (const auto& stage : scoped.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        for (const auto& unit : stage.units) {
            targets.push_back({&stage, &unit, unit.stack});
        }
    }
    if (targets.empty())
        throw Failure(ExitCode::kUsage, "no sglang role in the selection: `pdctl stack` dumps SGLang ranks",
                      "pick one with --role or --group");
    std::vector<RankDump> dumps(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& target = targets[i];
        const auto* node = deployment.cluster.find_node(target.unit->node);
        dumps[i] = {target.stage->role, target.unit->rank, target.unit->node,
                    deployment.on_nodes->run(*node, target.command)};
    });
    return dumps;
}

}  // namespace pdctl::ops
