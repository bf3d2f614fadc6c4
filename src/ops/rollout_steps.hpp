#pragma once
// Internal to ops/: the steps a rollout takes, each through the router the group is behind (a group
// replaced, one that joins, one that leaves), and the undoing of each. Each runs the engine under the
// rollout's lock and journal (run_engine_locked).

#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/rollout.hpp"
#include "pdctl/plan/rollout.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// One group replaced with `deployment`'s config, out of the router meanwhile (restart --rolling).
ExitCode replace_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                       engine::Reporter& journal);
// `group` out of its router, its requests finished, stopped and its GPUs free (`deployment`: the
// config it runs from).
ExitCode leave_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                     engine::Reporter& journal);
// `group` started with `deployment`'s config (unless it runs with it already) and in its router.
ExitCode join_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                    engine::Reporter& journal);

// What a rollout did, one group at a time, so that a rollback undoes exactly what was begun: a move is
// the removal of the group that ran on the nodes, then the addition of the config's.
struct Taken {
    plan::RolloutAction action;  // kReplace, kAdd or kRemove
    std::string group;
};

// One step, each part recorded in `taken` before it runs (a part that failed half-way is undone too).
ExitCode take_step(const Deployment& wanted, const Deployment& previous, const plan::RolloutStep& step,
                   const RolloutRequest& request, std::vector<Taken>& taken, engine::Reporter& journal);

// The undoing of one part: a replaced group back to the previous config, an added one out, a removed
// one back in.
ExitCode undo(const Deployment& wanted, const Deployment& previous, const Taken& part,
              const RolloutRequest& request, engine::Reporter& journal);

}  // namespace pdctl::ops
