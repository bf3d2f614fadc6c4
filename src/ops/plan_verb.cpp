#include "pdctl/ops/plan_verb.hpp"

#include "pdctl/config/duration.hpp"
#include "pdctl/ops/past_runs.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

PlannedVerb plan_verb(const Deployment& deployment, const PlanRequest& request) {
    PlannedVerb planned;
    // How each node is reached is decided before anything connects, so the plan can show it.
    planned.transports = transport_choices(deployment);
    if (request.rolling && request.verb != "restart")
        throw Failure(ExitCode::kUsage,
                      "--rolling goes with `plan restart`, not `plan " + request.verb + "`");
    auto scoped = plan::scope_plan(deployment.plan, request.scope, request.verb);
    planned.scoped = !request.scope.empty();
    planned.plan = std::move(scoped.plan);
    planned.moves_with = std::move(scoped.closure);
    // The deadlines start would use, learned from this machine's copy of the journal: plan touches no
    // node (start reads the coordinator's, which also holds other operators' runs).
    if (request.verb != "stop") {
        const auto learned = local_start_history(deployment.cluster);
        timeline::apply_deadlines(planned.plan, learned.history,
                                  config::parse_duration_flag("--deadline-floor", request.deadline_floor),
                                  request.deadline_policy);
        planned.deadlines_source = learned.source;
    }
    if (request.rolling)
        planned.rolling = plan::rolling_plan(deployment.plan, request.scope, request.allow_router_restart);
    return planned;
}

}  // namespace pdctl::ops
