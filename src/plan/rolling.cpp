#include "pdctl/plan/rolling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::plan {
namespace {

const char* kHowElse = "restart without --rolling to restart them together (requests fail meanwhile)";

std::vector<std::string> workers_of_type(const RouterFacts& facts, const std::string& type) {
    std::vector<std::string> stages;
    for (const auto& worker : facts.workers)
        if (worker.type == type) stages.push_back(worker.stage);
    return stages;
}

// The one router that lists every selected group.
const Stage& router_for(const Plan& plan, const std::vector<const Stage*>& selected) {
    const Stage* found = nullptr;
    for (const auto& stage : plan.stages) {
        if (!stage.router) continue;
        const bool lists_any = std::any_of(selected.begin(), selected.end(), [&](const Stage* group) {
            return stage.router->find_worker(group->role) != nullptr;
        });
        if (!lists_any) continue;
        if (found)
            throw Failure(ExitCode::kUsage,
                          fmt::format("--rolling: both {} and {} route to these groups; pdctl rolls "
                                      "through one router",
                                      found->role, stage.role),
                          kHowElse);
        found = &stage;
    }
    if (!found)
        throw Failure(ExitCode::kUsage,
                      "--rolling keeps a router serving while groups restart, but no router lists " +
                          selected.front()->role,
                      kHowElse);
    for (const auto* group : selected)
        if (!found->router->find_worker(group->role))
            throw Failure(ExitCode::kUsage,
                          fmt::format("--rolling: {} routes to {} but not to {}", found->role,
                                      selected.front()->role, group->role),
                          kHowElse);
    return *found;
}

void require_two(const RouterFacts& facts, const std::string& type, const std::string& router,
                 const std::string& because) {
    const auto groups = workers_of_type(facts, type);
    if (groups.size() >= 2) return;
    throw Failure(ExitCode::kUsage,
                  fmt::format("--rolling: {} has one {} group ({}){}: taking it out leaves the router "
                              "without a {}, so requests would fail",
                              router, type, util::join(groups, ", "), because, type),
                  std::string("add a second ") + type + " group (docs/operations.md), or " + kHowElse);
}

}  // namespace

std::string to_string(RollAction action) {
    switch (action) {
        case RollAction::kDrain:
            return "drain";
        case RollAction::kRestart:
            return "restart";
        case RollAction::kAdd:
            return "add";
        case RollAction::kRouterStop:
            return "router-stop";
        case RollAction::kRouterStart:
            return "router-start";
        case RollAction::kStop:
            return "stop";
        case RollAction::kStart:
            return "start";
    }
    return "restart";
}

std::string describe(const RollStep& step, const RollingPlan& rolling) {
    std::string text;
    switch (step.action) {
        case RollAction::kDrain:
            text = fmt::format("take {} out of {} and let its requests finish", step.stage, rolling.router);
            break;
        case RollAction::kRestart:
            text = fmt::format("restart {} and wait for its gate", step.stage);
            break;
        case RollAction::kAdd:
            text =
                fmt::format("add {} back to {} and wait until it is ready there", step.stage, rolling.router);
            break;
        case RollAction::kRouterStop:
            text = fmt::format("stop {} (requests fail from here)", step.stage);
            break;
        case RollAction::kRouterStart:
            text = fmt::format("start {} and wait for its gate (requests pass again)", step.stage);
            break;
        case RollAction::kStop:
            text = fmt::format("stop {} and wait for its GPUs", step.stage);
            break;
        case RollAction::kStart:
            text = fmt::format("start {} and wait for its gate", step.stage);
            break;
    }
    if (!step.why.empty()) text += ": " + step.why;
    return text;
}

RollingPlan rolling_plan(const Plan& plan, const Scope& scope, bool allow_router_restart) {
    if (scope.empty())
        throw Failure(ExitCode::kUsage, "--rolling needs --role or --group: it restarts groups one at a time",
                      "pdctl restart --role decode --rolling");
    const auto scoped = scope_plan(plan, scope, "status");  // the selection itself, without closure
    std::vector<const Stage*> selected;
    for (const auto& stage : scoped.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang)
            throw Failure(
                ExitCode::kUsage,
                fmt::format("--rolling restarts prefill and decode groups; {} is neither", stage.role),
                "restart it without --rolling");
        selected.push_back(plan.find_stage(stage.role));
    }
    const auto& router = router_for(plan, selected);
    RollingPlan rolling;
    rolling.router = router.role;
    rolling.facts = *router.router;

    if (!rolling.facts.worker_api()) {
        if (!allow_router_restart)
            throw Failure(
                ExitCode::kUsage,
                fmt::format("--rolling: {} is MiniLB, whose worker list is fixed at launch: it "
                            "cannot take a group out while it restarts, and it keeps sending "
                            "requests to a group that is down",
                            router.role),
                "use impl: sglang-router or smg (they add and remove workers at run time), or pass "
                "--allow-router-restart to stop the router while the groups restart (pdctl says how "
                "long it was down)");
        rolling.router_restart = true;
        rolling.steps.push_back({RollAction::kRouterStop, router.role, "MiniLB cannot take workers out"});
        for (const auto& stage : scope_plan(plan, scope, "restart").plan.stages)
            rolling.steps.push_back({RollAction::kRestart, stage.role, ""});
        rolling.steps.push_back({RollAction::kRouterStart, router.role, ""});
        return rolling;
    }

    std::set<std::string> chosen;
    for (const auto* stage : selected) chosen.insert(stage->role);
    // Decodes rolled after the last prefill need no roll of their own.
    std::set<std::string> reconnected;
    for (const auto* prefill : selected) {
        if (prefill->mode != "prefill") continue;
        require_two(rolling.facts, "prefill", router.role, "");
        rolling.steps.push_back({RollAction::kDrain, prefill->role, ""});
        rolling.steps.push_back({RollAction::kRestart, prefill->role, ""});
        const auto why = fmt::format("it must reconnect to the restarted {} (sglang #16903)", prefill->role);
        reconnected.clear();
        for (const auto& stage : plan.stages) {
            if (stage.mode != "decode") continue;
            // The router pairs the prefill with every decode it lists, whatever their depends_on says;
            // a decode that depends on it but sits behind another router reconnects too.
            const bool depends = std::any_of(stage.edges.begin(), stage.edges.end(),
                                             [&](const Edge& edge) { return edge.role == prefill->role; });
            const bool routed = rolling.facts.find_worker(stage.role) != nullptr;
            if (!depends && !routed) continue;
            if (routed) {
                require_two(rolling.facts, "decode", router.role, ", which restarts with " + prefill->role);
                rolling.steps.push_back({RollAction::kDrain, stage.role, why});
            }
            rolling.steps.push_back({RollAction::kRestart, stage.role, routed ? "" : why});
            if (routed) rolling.steps.push_back({RollAction::kAdd, stage.role, ""});
            reconnected.insert(stage.role);
        }
        rolling.steps.push_back(
            {RollAction::kAdd, prefill->role, reconnected.empty() ? "" : "every decode reconnected"});
    }
    for (const auto* decode : selected) {
        if (decode->mode != "decode" || reconnected.count(decode->role)) continue;
        require_two(rolling.facts, "decode", router.role, "");
        rolling.steps.push_back({RollAction::kDrain, decode->role, ""});
        rolling.steps.push_back({RollAction::kRestart, decode->role, ""});
        rolling.steps.push_back({RollAction::kAdd, decode->role, ""});
    }
    return rolling;
}

}  // namespace pdctl::plan
