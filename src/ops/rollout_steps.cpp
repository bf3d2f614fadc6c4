// The steps a rollout takes, each through the router the group is behind: a group replaced, one that
// joins, one that leaves; and the undoing of each (rollout_steps.hpp).

#include "rollout_steps.hpp"

#include <fmt/format.h>

#include "pdctl/ops/engine_run.hpp"

namespace pdctl::ops {
namespace {

// The router stage of `plan` that lists `group`.
const plan::Stage& router_listing(const plan::Plan& plan, const std::string& group) {
    for (const auto& stage : plan.stages)
        if (stage.router && stage.router->find_worker(group)) return stage;
    throw Failure(ExitCode::kInternal, "no router of the plan lists " + group);
}

// A group joins or leaves the deployment through its router, as steps the engine carries out.
ExitCode run_router_steps(const Deployment& deployment, const std::string& group,
                          const std::vector<plan::RollAction>& actions, const std::string& done,
                          const RolloutRequest& request, engine::Reporter& journal) {
    const auto& router = router_listing(deployment.plan, group);
    plan::RollingPlan steps;
    steps.router = router.role;
    steps.facts = *router.router;
    for (const auto action : actions) steps.steps.push_back({action, group, ""});
    steps.done = fmt::format(fmt::runtime(done), group, router.role);
    EngineRequest engine;
    engine.verb = EngineVerb::kRestart;
    engine.steps = std::move(steps);
    engine.drain_grace = request.drain_grace;
    return run_engine_locked(deployment, engine, journal);
}

}  // namespace

// One group replaced with `deployment`'s config, out of the router meanwhile (restart --rolling).
ExitCode replace_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                       engine::Reporter& journal) {
    EngineRequest engine;
    engine.verb = EngineVerb::kRestart;
    engine.scope.groups = {group};
    engine.rolling = true;
    engine.drain_grace = request.drain_grace;
    return run_engine_locked(deployment, engine, journal);
}

// `group` out of its router, its requests finished, stopped and its GPUs free (`deployment`: the
// config it runs from).
ExitCode leave_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                     engine::Reporter& journal) {
    return run_router_steps(deployment, group, {plan::RollAction::kDrain, plan::RollAction::kStop},
                            "{} is out of {} and stopped", request, journal);
}

// `group` started with `deployment`'s config (unless it runs with it already) and in its router.
ExitCode join_group(const Deployment& deployment, const std::string& group, const RolloutRequest& request,
                    engine::Reporter& journal) {
    return run_router_steps(deployment, group, {plan::RollAction::kStart, plan::RollAction::kAdd},
                            "{} runs with the config and is in {}", request, journal);
}

// One step, each part recorded in `taken` before it runs (a part that failed half-way is undone too).
ExitCode take_step(const Deployment& wanted, const Deployment& previous, const plan::RolloutStep& step,
                   const RolloutRequest& request, std::vector<Taken>& taken, engine::Reporter& journal) {
    switch (step.action) {
        case plan::RolloutAction::kReplace:
            taken.push_back({step.action, step.group});
            return replace_group(wanted, step.group, request, journal);
        case plan::RolloutAction::kAdd:
            taken.push_back({step.action, step.group});
            return join_group(wanted, step.group, request, journal);
        case plan::RolloutAction::kRemove:
            taken.push_back({step.action, step.group});
            return leave_group(previous, step.group, request, journal);
        case plan::RolloutAction::kMove: {
            taken.push_back({plan::RolloutAction::kRemove, step.running_group});
            if (const auto code = leave_group(previous, step.running_group, request, journal);
                code != ExitCode::kOk)
                return code;
            taken.push_back({plan::RolloutAction::kAdd, step.group});
            return join_group(wanted, step.group, request, journal);
        }
    }
    return ExitCode::kInternal;
}

// The undoing of one part: a replaced group back to the previous config, an added one out, a removed
// one back in.
ExitCode undo(const Deployment& wanted, const Deployment& previous, const Taken& part,
              const RolloutRequest& request, engine::Reporter& journal) {
    switch (part.action) {
        case plan::RolloutAction::kReplace:
            return replace_group(previous, part.group, request, journal);
        case plan::RolloutAction::kAdd:
            return leave_group(wanted, part.group, request, journal);
        case plan::RolloutAction::kRemove:
            return join_group(previous, part.group, request, journal);
        case plan::RolloutAction::kMove:
            break;
    }
    return ExitCode::kInternal;
}

}  // namespace pdctl::ops
