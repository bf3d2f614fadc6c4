#pragma once
// `restart --role R --rolling`: one group at a time, each taken out of the router before it stops and
// put back once its gate passed, so that requests through the router keep succeeding. Pure: the steps
// and the reasons a rolling restart is refused come from the plan alone.

#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"
#include "pdctl/plan/scope.hpp"

namespace pdctl::plan {

enum class RollAction {
    kDrain,        // DELETE the group from the router; wait until it is gone and in-flight work ends
    kRestart,      // stop the group, wait for its GPUs, start it, wait for its gate
    kAdd,          // POST it back to the router; wait until the router calls it ready
    kRouterStop,   // MiniLB with --allow-router-restart: the router goes down ...
    kRouterStart,  // ... and comes back once the groups restarted
    kStop,         // stop the group (drained before) and wait for its GPUs: it leaves the deployment
    kStart,        // start the group unless it runs with this config and passes its gate (a group joining)
};

struct RollStep {
    RollAction action = RollAction::kRestart;
    std::string stage;  // the group, or the router for kRouterStop/kRouterStart
    std::string why;    // when the step is not what the operator asked for ("decode reconnects ...")
};

struct RollingPlan {
    std::string router;  // the router stage that keeps serving (or is restarted)
    RouterFacts facts;
    std::vector<RollStep> steps;
    bool router_restart = false;  // MiniLB: the router is down from kRouterStop to kRouterStart's gate
    // What the run ends with once every step passed, when the steps are not a restart (a rollout that
    // moves a group: "decode-2 out of router and stopped"); empty: the restart's own words.
    std::string done;
};

// The steps of a rolling restart of `scope` (its groups, in plan order). A prefill group is rolled
// with every decode after it: a decode keeps its connection to the prefill it knew (sglang #16903), so
// the restarted prefill joins the router again only once every decode restarted (one at a time). Taking
// a group out must leave the router another of its kind, so every rolled role needs two groups.
// Throws Failure(kUsage), saying why and what to do instead, for a scope it cannot roll: empty, not
// prefill/decode, not behind one router, a single group, or a MiniLB router without
// `allow_router_restart`.
RollingPlan rolling_plan(const Plan& plan, const Scope& scope, bool allow_router_restart);

// "drain decode-2 from router" etc., for plans and progress.
std::string describe(const RollStep& step, const RollingPlan& rolling);
std::string to_string(RollAction action);

}  // namespace pdctl::plan
