#pragma once
// `pdctl rollout`: which groups a change replaces, in which order, which one is the canary, and the
// changes it refuses. Pure: the config's plan and the per-group differences (plan_diff.hpp) in, the
// steps out.
//
// The KV cache moves from a prefill to a decode in a layout both must share: a change of what fixes that
// layout (kv_layout_flags) may not leave a prefill and a decode speaking different layouts, neither when
// the change is done (refused: nothing is touched) nor while it rolls. Behind one router every decode
// takes KV from every prefill, so a change of the layout moves every prefill and decode group together,
// which a router cannot keep serving through: it needs --allow-downtime.

#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"
#include "pdctl/plan/plan_diff.hpp"

namespace pdctl::plan {

// The flags that fix the KV layout a prefill sends and a decode receives, and why each does.
struct KvLayoutFlag {
    const char* flag;
    const char* why;
};
const std::vector<KvLayoutFlag>& kv_layout_flags();

enum class RolloutAction {
    kReplace,  // out of the router, restarted with the config, back in
    kAdd,      // a group the config adds: started, then into the router
    kRemove,   // a group the config drops: out of the router, stopped (from the config it runs)
    kMove,     // a group whose nodes change role (decode -> prefill): kRemove of the one that runs
               // there, then kAdd of the config's
};
const char* to_string(RolloutAction action);

struct RolloutStep {
    std::string group;  // the config's group; kRemove: the running one
    RolloutAction action = RolloutAction::kReplace;
    std::string running_group;  // kMove: the group that runs on its nodes now
    bool canary = false;
    std::string what;  // "image a -> b; --max-running-requests 32 -> 64"
};

struct RolloutPlan {
    std::string router;  // the router stage that keeps serving
    RouterFacts facts;
    std::vector<RolloutStep> steps;  // the canary first
    std::vector<std::string> unchanged;
    // The KV layout changes: every prefill and decode group is replaced at once, the router's clients
    // see the downtime (--allow-downtime), and there is no canary. `kv_reasons` says what moves it.
    bool together = false;
    std::vector<std::string> kv_reasons;
    // MiniLB's worker list is fixed at launch: the changed groups restart in place (--allow-downtime).
    bool downtime = false;
    std::string downtime_why;
    // Groups are added, removed or moved between prefill and decode: with downtime, that is a whole
    // `start` (which stops what the config dropped and starts what it added), not a scoped restart.
    bool topology = false;
    // MiniLB routers whose command line changes with the worker list only: the downtime relaunches them.
    std::vector<std::string> relaunched;
};

struct RolloutOptions {
    std::string canary;  // a group to replace first; empty: the first changed decode group, else prefill
    bool allow_downtime = false;
};

// Prefill and decode groups added, removed, or moved between prefill and decode (a P:D change) roll
// too, behind a router with a worker API: a group leaves the router before it stops, and a new one
// joins it once its gate passed, so the router always has a prefill and a decode to send to. Order: the
// canary, the other replacements, the additions, the moves, the removals (capacity first goes up).
// The canary: the named one, else the first replaced decode, else the first replaced prefill, else
// the first group that starts (added or moved); a removal only is judged by its drains.
// Throws Failure(kUsage) saying why and what to do instead: nothing changes; a group that is not
// prefill or decode changed; the change would leave prefill and decode with different KV layouts;
// the change cannot roll behind the router and --allow-downtime was not given; a canary that is not a
// group this change starts.
RolloutPlan rollout_plan(const Plan& wanted, const std::vector<GroupDiff>& changes,
                         const RolloutOptions& options);

// What a group's change is, in one line: "image a -> b; --page-size 32 -> 64; add --x 1; env A changed".
std::string describe_change(const GroupDiff& diff);

}  // namespace pdctl::plan
