#pragma once
// What `pdctl heal` does in one pass, decided from the cluster's status and the heals the journal
// remembers. Pure: status, plan and history in, actions out; ops/heal.cpp carries them out.
//
// A stage is broken when a rank exited or is absent, a rank is stalled, or its gate fails while no rank
// is making progress (a group still loading is left to finish). Each broken stage is restarted once per
// pass: a prefill group with the decode groups that depend on it (the restart's own closure, sglang
// #16903), so a decode that is broken too is not restarted twice. Through the router's worker API
// (rolling) when the router has one and another group of the kind is ready, so traffic keeps flowing;
// otherwise a scoped restart. A stage healed `max_tries` times within `window` that is broken again is
// left alone (the crash-loop back-off of Kubernetes, without its growing delay: the timer's interval
// spaces the tries) and named with exit 17.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/status.hpp"
#include "pdctl/health/router_worker_api.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/state/intent.hpp"

namespace pdctl::ops {

struct HealPolicy {
    int max_tries = 3;
    std::chrono::milliseconds window{std::chrono::minutes(10)};
};

// One earlier heal of a stage, from the journal's `heal_action` lines.
struct HealAttempt {
    std::string stage;
    long long epoch_ms = 0;
    std::string run;
    // How it failed, when it did (the run's stage_failed line): what a group left alone is shown with.
    std::string failure;
    std::vector<std::string> log_tail;
};

enum class HealKind {
    kRestart,  // restart the stage (rolling or scoped)
    kGiveUp,   // broken again after max_tries heals within the window: left alone
    kWait,     // not serving but still making progress (loading): left to finish
    kBlind,    // a node of it did not answer: what runs there is unknown, nothing is done
    // The router's worker list out of line with the config (SMG, sglang-router):
    kRouterAdd,         // a configured group the router does not list: POST it
    kRouterRemove,      // a worker the config does not name, or one SMG marked failed (it never recovers)
    kStoppedOnPurpose,  // an operator stopped it (`pdctl stop`): left stopped, whatever its units show
};

struct HealAction {
    HealKind kind = HealKind::kRestart;
    std::string stage;
    std::string why;       // "rank 1 on n6 exited (code 137)", "rank 0 on n2 stalled: ..."
    bool rolling = false;  // through the router's worker API
    std::string router;    // the router stage of a rolling restart
    int tries = 0;         // heals of the stage within the window, before this one
    // The unit whose log explains it (kGiveUp prints its last lines): the first broken rank.
    std::string unit;
    std::string node;
    std::vector<std::string> along;  // the stages the restart takes along (a prefill's decodes)
    // kGiveUp: how its latest heal failed (the journal's stage_failed line), if it said.
    std::string last_failure;
    std::vector<std::string> last_log_tail;
    // kRouterAdd / kRouterRemove: the worker as the router knows it (`router` is the router's stage).
    std::string url;
    std::string worker_type;
    std::string worker_id;
    // kStoppedOnPurpose: who stopped it, when, and the command that brings it back.
    std::optional<state::intent::DeliberateStop> stopped;
};

struct HealPlan {
    std::vector<HealAction> actions;  // in plan order
    bool healthy() const { return actions.empty(); }
    int count(HealKind kind) const;
};

// `now_ms`: epoch ms, for the window. Stages outside `plan` (a scope) are neither judged nor restarted;
// stages `intent` says an operator stopped are left stopped (one kStoppedOnPurpose each), and a restart
// never takes them along.
HealPlan plan_heal(const plan::Plan& plan, const engine::ClusterStatus& status,
                   const std::vector<HealAttempt>& history, const HealPolicy& policy, long long now_ms,
                   const state::intent::Intent& intent = {});

// The router's list against the config: each configured group it does not list is added, each listed
// worker the config does not name is removed, and one SMG marked failed (terminal) is removed and then
// added (two actions). Groups in `restarting` are left to their restart, which takes them out and back.
// A group stopped on purpose is never added, and taken out when still listed.
std::vector<HealAction> plan_router_sync(const plan::Stage& router,
                                         const std::vector<health::ListedWorker>& listed,
                                         const std::vector<std::string>& restarting,
                                         const state::intent::Intent& intent = {});

// The journal's heal_action lines (JSON Lines text), oldest first, each with its run's failure if it
// failed; other lines are skipped. A heal of a stage that an operator had stopped on purpose at the time
// (the journal's `intent` lines) undid that stop rather than healing a crash: it is not counted.
std::vector<HealAttempt> heal_attempts(const std::string& journal_jsonl);

// "restart decode-2 (rolling through router): rank 1 on n6 exited (code 137)", for progress, --dry-run
// and the journal.
std::string describe(const HealAction& action);
std::string to_string(HealKind kind);  // restart | give-up | wait | blind | router-add | ...

}  // namespace pdctl::ops
