#include "pdctl/ops/heal_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

struct Verdict {
    HealKind kind = HealKind::kRestart;
    std::string why;
    std::string unit;
    std::string node;
};

// A rank moving through a start-up phase, not one that got where it goes (rank 0 ready, the others
// joined) and stopped answering since: status calls every rank of a group that is not ready "moving"
// until its log has been quiet past stall_after, which a hung rank of a serving group is not yet.
bool still_starting(const engine::UnitStatus& unit) {
    static const std::set<std::string> arrived = {"", "ready", "joined", "serving", "failed"};
    return unit.progress == "moving" && !arrived.count(unit.phase);
}

std::string rank_on(const engine::UnitStatus& unit) {
    return fmt::format("rank {} on {}", unit.rank, unit.node);
}

// What is wrong with a stage from its own units and gate, or nothing. `gate_counts`: whether a failing
// gate alone makes it broken (not for a router whose workers are being healed: its gate follows them).
std::optional<Verdict> judge(const engine::RoleStatus& role, bool gate_counts) {
    for (const auto& unit : role.units)
        if (unit.state == "unknown")
            return Verdict{HealKind::kBlind, unit.node + " did not answer: what runs there is unknown",
                           unit.unit, unit.node};
    for (const auto& unit : role.units) {
        if (unit.state == "exited")
            return Verdict{
                HealKind::kRestart,
                rank_on(unit) + " exited" + (unit.exit_code.empty() ? "" : " (code " + unit.exit_code + ")"),
                unit.unit, unit.node};
        if (unit.state == "absent")
            return Verdict{HealKind::kRestart, rank_on(unit) + " is not running", unit.unit, unit.node};
    }
    for (const auto& unit : role.units)
        if (unit.stalled())
            return Verdict{HealKind::kRestart,
                           rank_on(unit) + " " + (unit.stall.empty() ? "stalled" : unit.stall), unit.unit,
                           unit.node};
    if (role.ready) return std::nullopt;
    for (const auto& unit : role.units) {
        if (unit.state == "pending")
            return Verdict{HealKind::kWait, rank_on(unit) + " waits in the scheduler's queue", unit.unit,
                           unit.node};
        if (still_starting(unit))
            return Verdict{
                HealKind::kWait,
                rank_on(unit) + " is still starting" + (unit.phase.empty() ? "" : " (" + unit.phase + ")"),
                unit.unit, unit.node};
    }
    if (!gate_counts) return std::nullopt;
    const auto& rank0 = role.units.empty() ? engine::UnitStatus{} : role.units.front();
    return Verdict{HealKind::kRestart,
                   "its gate fails (" +
                       (role.gate_answer.empty() ? std::string("no answer") : role.gate_answer) +
                       ") while every rank runs",
                   rank0.unit, rank0.node};
}

const engine::RoleStatus* status_of(const engine::ClusterStatus& status, const std::string& stage) {
    for (const auto& role : status.roles)
        if (role.role == stage) return &role;
    return nullptr;
}

// The decode groups a restart of prefill group `prefill` takes along (plan::scope_plan's closure).
std::vector<std::string> decodes_of(const plan::Plan& plan, const std::string& prefill) {
    std::vector<std::string> along;
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang || stage.mode != "decode") continue;
        for (const auto& edge : stage.edges)
            if (edge.role == prefill) {
                along.push_back(stage.role);
                break;
            }
    }
    return along;
}

// The router that lists `stage` and can take it out and back at run time, if any.
const plan::Stage* rolling_router(const plan::Plan& plan, const std::string& stage) {
    for (const auto& candidate : plan.stages)
        if (candidate.router && candidate.router->worker_api() && candidate.router->find_worker(stage))
            return &candidate;
    return nullptr;
}

// Another group of the same mode that is ready and not broken: the router keeps one to send to.
bool another_ready(const plan::Plan& plan, const engine::ClusterStatus& status, const plan::Stage& stage,
                   const std::set<std::string>& broken) {
    for (const auto& other : plan.stages) {
        if (other.role == stage.role || other.kind != stage.kind || other.mode != stage.mode) continue;
        const auto* role = status_of(status, other.role);
        if (role && role->ready && !broken.count(other.role)) return true;
    }
    return false;
}

}  // namespace

int HealPlan::count(HealKind kind) const {
    return static_cast<int>(std::count_if(actions.begin(), actions.end(),
                                          [kind](const HealAction& action) { return action.kind == kind; }));
}

HealPlan plan_heal(const plan::Plan& plan, const engine::ClusterStatus& status,
                   const std::vector<HealAttempt>& history, const HealPolicy& policy, long long now_ms,
                   const state::intent::Intent& intent) {
    HealPlan heal;
    // What an operator stopped is neither judged nor taken along: one line each says so, or one for the
    // whole cluster when a single `pdctl stop` stopped all of it.
    std::set<std::string> covered;  // stages not to act on: stopped on purpose, or taken along already
    const auto* first = plan.stages.empty() ? nullptr : intent.stopped_on_purpose(plan.stages.front().role);
    const bool whole =
        first && std::all_of(plan.stages.begin(), plan.stages.end(), [&](const plan::Stage& stage) {
            const auto* stop = intent.stopped_on_purpose(stage.role);
            return stop && stop->act.run == first->act.run;
        });
    if (whole) {
        HealAction action;
        action.kind = HealKind::kStoppedOnPurpose;
        action.stage = "cluster " + plan.cluster;
        action.why =
            fmt::format("stopped on purpose by {} at {} ({})", first->act.who, first->act.at, first->command);
        action.stopped = *first;
        heal.actions.push_back(std::move(action));
        return heal;
    }
    for (const auto& stage : plan.stages)
        if (const auto* stop = intent.stopped_on_purpose(stage.role)) {
            HealAction action;
            action.kind = HealKind::kStoppedOnPurpose;
            action.stage = stage.role;
            action.why = fmt::format("stopped on purpose by {} at {} ({})", stop->act.who, stop->act.at,
                                     stop->command);
            action.stopped = *stop;
            heal.actions.push_back(std::move(action));
            covered.insert(stage.role);
        }
    // First the stages that do not depend on others' health (everything but routers), then the routers,
    // whose gate (a request through them) fails whenever a group behind them is broken.
    std::map<std::string, Verdict> verdicts;
    std::set<std::string> broken;
    for (const auto& stage : plan.stages) {
        if (stage.kind == config::RoleKind::Router || covered.count(stage.role)) continue;
        const auto* role = status_of(status, stage.role);
        if (!role) continue;
        if (auto verdict = judge(*role, true)) {
            if (verdict->kind == HealKind::kRestart) broken.insert(stage.role);
            verdicts[stage.role] = std::move(*verdict);
        }
    }
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Router || covered.count(stage.role)) continue;
        const auto* role = status_of(status, stage.role);
        if (!role) continue;
        // A router with a worker API whose gate fails while its workers are well is out of line with
        // them (a group missing from its list): put right by plan_router_sync, not by a restart.
        const bool worker_api = stage.router && stage.router->worker_api();
        // One whose group is stopped on purpose fails its gate for that reason alone (MiniLB keeps sending to
        // it): no restart of the router would bring the group back.
        if (auto verdict = judge(*role, broken.empty() && verdicts.empty() && covered.empty() && !worker_api))
            verdicts[stage.role] = std::move(*verdict);
    }

    for (const auto& stage : plan.stages) {
        const auto found = verdicts.find(stage.role);
        if (found == verdicts.end() || covered.count(stage.role)) continue;
        const auto& verdict = found->second;
        HealAction action;
        action.kind = verdict.kind;
        action.stage = stage.role;
        action.why = verdict.why;
        action.unit = verdict.unit;
        action.node = verdict.node;
        if (verdict.kind == HealKind::kRestart) {
            action.tries = static_cast<int>(
                std::count_if(history.begin(), history.end(), [&](const HealAttempt& attempt) {
                    return attempt.stage == stage.role && now_ms - attempt.epoch_ms <= policy.window.count();
                }));
            if (action.tries >= policy.max_tries) {
                action.kind = HealKind::kGiveUp;
                for (const auto& attempt : history) {
                    if (attempt.stage != stage.role) continue;
                    action.last_failure = attempt.failure;
                    action.last_log_tail = attempt.log_tail;
                }
            } else {
                if (stage.kind == config::RoleKind::Sglang && stage.mode == "prefill")
                    for (auto& decode : decodes_of(plan, stage.role))
                        if (!intent.stopped_on_purpose(decode)) action.along.push_back(std::move(decode));
                // A decode it would take along on a node that does not answer: the restart would act
                // blind there, so none happens.
                for (const auto& along : action.along)
                    if (const auto other = verdicts.find(along);
                        other != verdicts.end() && other->second.kind == HealKind::kBlind) {
                        action.kind = HealKind::kBlind;
                        action.why = along + " goes with it, and " + other->second.why;
                        action.along.clear();
                        break;
                    }
                if (action.kind == HealKind::kBlind) {
                    heal.actions.push_back(std::move(action));
                    continue;
                }
                for (const auto& along : action.along) covered.insert(along);
                if (const auto* router = rolling_router(plan, stage.role);
                    router && another_ready(plan, status, stage, broken)) {
                    action.rolling = true;
                    action.router = router->role;
                }
            }
        }
        heal.actions.push_back(std::move(action));
    }
    return heal;
}

std::vector<HealAction> plan_router_sync(const plan::Stage& router,
                                         const std::vector<health::ListedWorker>& listed,
                                         const std::vector<std::string>& restarting,
                                         const state::intent::Intent& intent) {
    std::vector<HealAction> actions;
    if (!router.router || !router.router->worker_api()) return actions;
    const auto& facts = *router.router;
    auto action = [&](HealKind kind, std::string stage, std::string why, const std::string& url,
                      const std::string& type, const std::string& id) {
        HealAction sync;
        sync.kind = kind;
        sync.stage = std::move(stage);
        sync.why = std::move(why);
        sync.router = router.role;
        sync.url = url;
        sync.worker_type = type;
        sync.worker_id = id;
        actions.push_back(std::move(sync));
    };
    for (const auto& worker : facts.workers) {
        const auto* entry = health::find_worker(listed, worker.url);
        if (const auto* stop = intent.stopped_on_purpose(worker.stage)) {
            if (entry && entry->status != "draining")
                action(HealKind::kRouterRemove, worker.stage,
                       fmt::format("{} is stopped on purpose ({}) but {} still lists it", worker.stage,
                                   stop->command, router.role),
                       worker.url, worker.type, entry->id);
            continue;
        }
        if (std::find(restarting.begin(), restarting.end(), worker.stage) != restarting.end()) continue;
        if (!entry) {
            action(HealKind::kRouterAdd, worker.stage, router.role + " does not list " + worker.url,
                   worker.url, worker.type, "");
        } else if (entry->status == "failed") {
            const auto why =
                router.role + " marked " + worker.url + " failed, which it never takes back by itself";
            action(HealKind::kRouterRemove, worker.stage, why, worker.url, worker.type, entry->id);
            action(HealKind::kRouterAdd, worker.stage, why, worker.url, worker.type, "");
        }
    }
    for (const auto& entry : listed) {
        const bool configured =
            std::any_of(facts.workers.begin(), facts.workers.end(), [&](const plan::RouterWorker& worker) {
                return util::without_trailing_slash(worker.url) == util::without_trailing_slash(entry.url);
            });
        if (!configured && entry.status != "draining")
            action(
                HealKind::kRouterRemove, router.role,
                router.role + " lists " + entry.url + " (" + entry.type + "), which the config does not name",
                entry.url, entry.type, entry.id);
    }
    return actions;
}

std::vector<HealAttempt> heal_attempts(const std::string& journal_jsonl) {
    std::vector<HealAttempt> attempts;
    std::map<std::string, std::size_t> by_run;
    std::istringstream in(journal_jsonl);
    std::string text;
    while (std::getline(in, text)) {
        // Most lines are neither: skip them unparsed.
        const bool action = text.find("\"heal_action\"") != std::string::npos;
        const bool failed = text.find("\"stage_failed\"") != std::string::npos;
        if (!action && !failed) continue;
        const auto line = nlohmann::json::parse(text, nullptr, false);
        if (!line.is_object()) continue;
        const auto event = line.value("event", "");
        const auto run = line.value("run", "");
        if (event == "heal_action") {
            const auto epoch = line.find("epoch_ms");
            if (epoch == line.end() || !epoch->is_number()) continue;
            by_run[run] = attempts.size();
            attempts.push_back({line.value("stage", ""), epoch->get<long long>(), run, "", {}});
        } else if (event == "stage_failed") {
            const auto found = by_run.find(run);
            if (found == by_run.end()) continue;
            auto& attempt = attempts[found->second];
            attempt.failure = line.value("reason", "");
            attempt.log_tail.clear();
            if (const auto tail = line.find("log_tail"); tail != line.end() && tail->is_array())
                for (const auto& entry : *tail)
                    if (entry.is_string()) attempt.log_tail.push_back(entry.get<std::string>());
        }
    }
    // The stages stopped on purpose at each attempt's time, from the intent changes in journal order.
    const auto changes = state::intent::journal_changes(journal_jsonl);
    std::vector<HealAttempt> counted;
    std::set<std::string> stopped;
    std::size_t next = 0;
    for (auto& attempt : attempts) {
        for (; next < changes.size() && changes[next].epoch_ms <= attempt.epoch_ms; ++next) {
            const auto& change = changes[next];
            if (change.kind == "stopped") stopped.insert(change.stages.begin(), change.stages.end());
            if (change.kind == "started")
                for (const auto& stage : change.stages) stopped.erase(stage);
        }
        if (!stopped.count(attempt.stage)) counted.push_back(std::move(attempt));
    }
    return counted;
}

std::string to_string(HealKind kind) {
    switch (kind) {
        case HealKind::kRestart:
            return "restart";
        case HealKind::kGiveUp:
            return "give-up";
        case HealKind::kWait:
            return "wait";
        case HealKind::kBlind:
            return "blind";
        case HealKind::kRouterAdd:
            return "router-add";
        case HealKind::kRouterRemove:
            return "router-remove";
        case HealKind::kStoppedOnPurpose:
            return "stopped-on-purpose";
    }
    return "?";
}

std::string describe(const HealAction& action) {
    switch (action.kind) {
        case HealKind::kRestart:
            return fmt::format("restart {}{} ({}): {}", action.stage,
                               action.along.empty() ? "" : " with " + util::join(action.along, ", "),
                               action.rolling ? "rolling, through " + action.router : "scoped restart",
                               action.why);
        case HealKind::kGiveUp:
            return fmt::format("leave {} alone: {}; healed {} times within the window already{}",
                               action.stage, action.why, action.tries,
                               action.last_failure.empty() ? "" : ", the last time: " + action.last_failure);
        case HealKind::kWait:
            return fmt::format("wait for {}: {}", action.stage, action.why);
        case HealKind::kBlind:
            return fmt::format("cannot heal {}: {}", action.stage, action.why);
        case HealKind::kRouterAdd:
            return fmt::format("add {} ({}) to {}: {}", action.url, action.worker_type, action.router,
                               action.why);
        case HealKind::kRouterRemove:
            return fmt::format("remove {} ({}) from {}: {}", action.url, action.worker_type, action.router,
                               action.why);
        case HealKind::kStoppedOnPurpose:
            return fmt::format(
                "leave {} stopped: {}; `{}` brings it back", action.stage, action.why,
                action.stopped ? action.stopped->bring_back : "pdctl start --group " + action.stage);
    }
    return action.stage;
}

}  // namespace pdctl::ops
