#pragma once
// `pdctl plan [start|stop|restart]`: what a verb would do, as it would do it — the plan scoped to
// --role/--group with what moves along, its gate deadlines learned from this machine's copy of the past
// starts, how each node is reached, or the steps of a rolling restart. Touches no node.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/transport_choice.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/timeline/start_history.hpp"

namespace pdctl::ops {

struct PlanRequest {
    std::string verb = "start";  // start, stop or restart (the CLI refuses any other)
    plan::Scope scope;           // --role / --group
    bool rolling = false;        // restart: the steps of `restart --rolling`
    bool allow_router_restart = false;
    timeline::DeadlinePolicy deadline_policy = timeline::DeadlinePolicy::kLearned;
    std::string deadline_floor = "1m";  // read only when deadlines are chosen (not for stop)
};

struct PlannedVerb {
    plan::Plan plan;                              // scoped, with the deadlines start would use
    bool scoped = false;                          // --role/--group narrowed it
    std::vector<std::string> moves_with;          // why each stage outside the scope comes along
    std::vector<exec::NodeTransport> transports;  // empty for the local executor
    std::optional<plan::RollingPlan> rolling;     // with --rolling
    std::string deadlines_source;                 // where the learned deadlines were read ("" for stop)
};

// Throws Failure (usage) for --rolling with a verb other than restart or a bad --deadline-floor, and as
// plan::scope_plan does for names the plan does not hold.
PlannedVerb plan_verb(const Deployment& deployment, const PlanRequest& request);

}  // namespace pdctl::ops
