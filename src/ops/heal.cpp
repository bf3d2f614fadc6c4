#include "pdctl/ops/heal.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "pdctl/config/duration.hpp"
#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/engine.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/ops/intent_store.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/ops/status.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
namespace {

constexpr int kLogTailLines = 20;
constexpr std::chrono::milliseconds kRouterTimeout{std::chrono::seconds(5)};

// Whether another run holds the deploy lock: taken and given back at once, so a pass that finds a
// start or restart under way touches nothing (Failure kLocked names the holder).
void ensure_lock_free(const Deployment& deployment) {
    const auto me = state::current_operator();
    state::DeployLock probe(*deployment.executor, deployment.cluster, me, "heal",
                            state::journal::new_run_id());
    probe.release();
}

std::vector<HealAttempt> past_attempts(const Deployment& deployment, HealReport& report) {
    try {
        const auto journal = read_journal(deployment);
        if (journal.code != ExitCode::kOk)
            report.notes.push_back("the journal was read from " + journal.source +
                                   ": heals run from other machines are not counted for the back-off");
        return heal_attempts(journal.text);
    } catch (const Failure& failure) {
        report.notes.push_back(std::string(failure.what()) + ": no heal is counted for the back-off");
        return {};
    }
}

// The broken rank's last log lines, for a group left alone.
std::vector<std::string> log_tail(const Deployment& deployment, const HealAction& action) {
    for (const auto& stage : deployment.plan.stages)
        for (const auto& unit : stage.units) {
            if (unit.name != action.unit) continue;
            const auto answer =
                deployment.executor->run(engine::plan_node(deployment.plan, unit.node), unit.logs);
            if (!answer.transport_error.empty())
                return {"(its log could not be read: " + answer.transport_error + ")"};
            std::vector<std::string> lines;
            for (const auto line : util::lines(answer.out)) lines.emplace_back(line);
            if (lines.size() > static_cast<std::size_t>(kLogTailLines))
                lines.erase(lines.begin(), lines.end() - kLogTailLines);
            return lines;
        }
    return {};
}

nlohmann::json action_fields(const HealAction& action) {
    return {{"stage", action.stage}, {"action", to_string(action.kind)},
            {"why", action.why},     {"rolling", action.rolling},
            {"along", action.along}, {"tries", action.tries}};
}

// A restart of the group (and what it takes along), as its own journaled run under the lock.
ExitCode restart(const Deployment& deployment, HealAction& action, const state::intent::Intent& intent,
                 engine::Reporter& screen) {
    EngineRequest request;
    request.verb = EngineVerb::kRestart;
    request.scope.groups = {action.stage};
    for (const auto& [stage, stop] : intent.stopped) request.leave_stopped.push_back(stage);
    // What a dead rank had in flight is lost already; the decodes a prefill takes along still finish
    // what they hold for a moment.
    request.drain_grace = action.along.empty() ? std::chrono::milliseconds(0) : std::chrono::seconds(2);
    if (action.rolling) {
        try {
            plan::rolling_plan(deployment.plan, request.scope, false);
            request.rolling = true;
        } catch (const Failure& refused) {
            if (refused.code() != ExitCode::kUsage) throw;
            screen.note(fmt::format("heal: {} cannot roll ({}); a scoped restart instead", action.stage,
                                    refused.what()));
            action.rolling = false;
        }
    }
    return run_journaled_verb(deployment, screen, "heal", [&](JournalingReporter& journal) {
        journal.journal_event("heal_action", action_fields(action));
        journal.note("heal: " + describe(action));
        return run_engine_locked(deployment, request, journal);
    });
}

ExitCode give_up(const Deployment& deployment, const HealAction& action, engine::Reporter& screen) {
    return run_journaled_verb(deployment, screen, "heal", [&](JournalingReporter& journal) {
        journal.journal_event("heal_gave_up", action_fields(action));
        journal.note("heal: " + describe(action));
        return ExitCode::kHealGaveUp;
    });
}

ExitCode sync_router(const Deployment& deployment, const HealAction& action, engine::Reporter& screen,
                     health::HttpProber& prober) {
    const auto* router = deployment.plan.find_stage(action.router);
    if (!router || !router->router) return ExitCode::kInternal;
    return run_journaled_verb(deployment, screen, "heal", [&](JournalingReporter& journal) {
        journal.journal_event("heal_router", action_fields(action));
        journal.note("heal: " + describe(action));
        health::RouterWorkerApi api(prober, router->router->url, kRouterTimeout);
        std::string refused;
        if (action.kind == HealKind::kRouterRemove) {
            refused = api.remove(action.worker_id);
        } else {
            std::optional<int> bootstrap;
            if (const auto* worker = router->router->find_worker(action.stage))
                bootstrap = worker->bootstrap_port;
            refused = api.add(action.url, action.worker_type, bootstrap);
        }
        if (refused.empty()) return ExitCode::kOk;
        journal.note(fmt::format("heal: {} refused: {}", action.router, refused));
        return ExitCode::kDegraded;
    });
}

// The router's list, once the restarts are done, against the config.
std::vector<HealAction> router_actions(const Deployment& deployment, const engine::ClusterStatus& status,
                                       const std::vector<std::string>& restarting,
                                       const state::intent::Intent& intent, health::HttpProber& prober,
                                       HealReport& report) {
    std::vector<HealAction> actions;
    for (const auto& stage : deployment.plan.stages) {
        if (!stage.router || !stage.router->worker_api()) continue;
        bool running = false;
        for (const auto& role : status.roles)
            if (role.role == stage.role)
                for (const auto& unit : role.units) running = running || unit.state == "running";
        if (!running) continue;  // restarted (or left alone) as a stage of its own
        health::RouterWorkerApi api(prober, stage.router->url, kRouterTimeout);
        std::string error;
        const auto listed = api.list(error);
        if (!listed) {
            report.notes.push_back(stage.role + " does not list its workers (" + error +
                                   "): its list was not compared with the config");
            continue;
        }
        for (auto& action : plan_router_sync(stage, *listed, restarting, intent))
            actions.push_back(std::move(action));
    }
    return actions;
}

// Which code the pass ends with: a lock held elsewhere, Ctrl-C, an unreachable node and a failed heal
// say more than a group left alone, which says more than success.
int weight(ExitCode code) {
    switch (code) {
        case ExitCode::kOk:
            return 0;
        case ExitCode::kHealGaveUp:
            return 1;
        case ExitCode::kUnreachable:
            return 3;
        case ExitCode::kLocked:
            return 5;
        case ExitCode::kInterrupted:
            return 6;
        default:
            return 2;  // a heal that failed (4, 5, 7, 11, 12, ...)
    }
}

void settle(HealReport& report, ExitCode code) {
    if (weight(code) > weight(report.code)) report.code = code;
}

}  // namespace

void pause_heal(const Deployment& deployment, long long until_epoch_ms, const std::string& reason,
                engine::Reporter& screen) {
    std::string error;
    run_journaled_verb(deployment, screen, "heal pause", [&](JournalingReporter& journal) {
        error = change_intent(deployment, journal, "paused", {},
                              [&](state::intent::Intent& now, const state::intent::Act& act) {
                                  now.pause = state::intent::HealPause{act, until_epoch_ms, reason};
                                  return true;
                              });
        if (!error.empty()) return ExitCode::kUnreachable;
        journal.journal_note(fmt::format("heal paused until {}: {}", util::utc_text(until_epoch_ms), reason));
        return ExitCode::kOk;
    });
    if (!error.empty()) throw Failure(ExitCode::kUnreachable, error + "; heal is not paused");
}

bool resume_heal(const Deployment& deployment, engine::Reporter& screen) {
    std::string error;
    bool ended = false;
    run_journaled_verb(deployment, screen, "heal resume", [&](JournalingReporter& journal) {
        error = change_intent(deployment, journal, "resumed", {},
                              [&](state::intent::Intent& now, const state::intent::Act&) {
                                  ended = now.active_pause(util::epoch_ms_now()) != nullptr;
                                  const bool any = now.pause.has_value();
                                  now.pause.reset();
                                  return any;
                              });
        if (!error.empty()) return ExitCode::kUnreachable;
        journal.journal_note(ended ? "heal resumed: the next pass acts again" : "heal was not paused");
        return ExitCode::kOk;
    });
    if (!error.empty()) throw Failure(ExitCode::kUnreachable, error + "; a pause, if any, still holds");
    return ended;
}

HealReport run_heal_pass(const Deployment& deployment, const HealRequest& request, engine::Reporter& screen) {
    HealReport report;
    report.cluster = deployment.cluster.name;
    report.dry_run = request.dry_run;
    if (!request.dry_run) ensure_lock_free(deployment);
    // What the operators meant first: a pause holds the pass, a deliberate stop is left alone. Unknown
    // intent is no licence to act: a stop for maintenance would be undone.
    const auto intent = read_intent(deployment);
    if (!intent.error.empty())
        throw Failure(ExitCode::kUnreachable, intent.error +
                                                  "; nothing was healed, since what was stopped on "
                                                  "purpose cannot be told from what crashed");
    if (const auto* pause = intent.intent.active_pause(util::epoch_ms_now())) {
        report.paused = *pause;
        return report;
    }
    const auto status = read_status(deployment, {}, {.probe = true}, &intent.intent);
    const auto history = past_attempts(deployment, report);
    const auto decided =
        plan_heal(deployment.plan, status, history, request.policy, util::epoch_ms_now(), intent.intent);
    auto& prober = *deployment.prober;
    auto& clock = *deployment.clock;
    const auto since = [&clock](engine::TimePoint began) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - began);
    };

    // The groups this pass restarts, leaves alone, waits for or cannot see: the router's list is not
    // put right for them (a restart takes its group out and back; the others would be added broken).
    std::vector<std::string> restarting;
    for (const auto& action : decided.actions) {
        if (action.kind == HealKind::kStoppedOnPurpose) continue;  // plan_router_sync keeps them out
        restarting.push_back(action.stage);
        restarting.insert(restarting.end(), action.along.begin(), action.along.end());
    }
    const auto window = config::format_duration(request.policy.window);
    engine::install_interrupt_handlers();
    for (auto action : decided.actions) {
        HealStep step;
        const auto began = clock.now();
        // Left alone on purpose: the report's one line says so; nothing happens to show progress of.
        if (action.kind != HealKind::kStoppedOnPurpose) screen.note("heal: " + describe(action));
        if (action.kind == HealKind::kStoppedOnPurpose) {
            step.outcome = "left stopped: stopped on purpose";
        } else if (action.kind == HealKind::kBlind) {
            step.code = ExitCode::kUnreachable;
            step.outcome = "not healed: a node did not answer";
        } else if (action.kind == HealKind::kWait) {
            step.outcome = "left to finish starting";
        } else if (action.kind == HealKind::kGiveUp) {
            // The last heal's failure says why it does not come up; without one, the log as it is now.
            step.log_tail =
                action.last_log_tail.empty() ? log_tail(deployment, action) : action.last_log_tail;
            step.code = request.dry_run ? ExitCode::kHealGaveUp : give_up(deployment, action, screen);
            step.outcome = fmt::format("left alone after {} heals within {}", action.tries, window);
        } else if (request.dry_run) {
            step.outcome = "would " + describe(action);
        } else {
            try {
                step.code = restart(deployment, action, intent.intent, screen);
            } catch (const Failure& failure) {
                step.code = failure.code();
                step.outcome = failure.what();
            }
            if (step.outcome.empty())
                step.outcome = step.code == ExitCode::kOk
                                   ? "healed in " + util::format_elapsed(since(began))
                                   : fmt::format("heal failed ({})", describe(step.code));
        }
        step.elapsed_ms = since(began).count();
        step.action = std::move(action);
        settle(report, step.code);
        report.steps.push_back(std::move(step));
        if (report.code == ExitCode::kLocked || engine::interrupted()) return report;
    }

    // After the restarts (which take their groups out and back themselves), the routers' lists.
    for (auto& action : router_actions(deployment, status, restarting, intent.intent, prober, report)) {
        HealStep step;
        const auto began = clock.now();
        screen.note("heal: " + describe(action));
        if (request.dry_run) {
            step.outcome = "would " + describe(action);
        } else {
            try {
                step.code = sync_router(deployment, action, screen, prober);
            } catch (const Failure& failure) {
                step.code = failure.code();
                step.outcome = failure.what();
            }
            if (step.outcome.empty())
                step.outcome = step.code == ExitCode::kOk ? "done" : "refused by the router";
        }
        step.elapsed_ms = since(began).count();
        step.action = std::move(action);
        settle(report, step.code);
        report.steps.push_back(std::move(step));
        if (report.code == ExitCode::kLocked) return report;
    }
    if (request.dry_run && report.code == ExitCode::kOk) {
        for (const auto& step : report.steps)
            if (step.action.kind != HealKind::kWait && step.action.kind != HealKind::kStoppedOnPurpose)
                report.code = ExitCode::kDegraded;
    }
    return report;
}

ExitCode run_heal(const Deployment& deployment, const HealRequest& request, engine::Reporter& screen,
                  const HealWatchHooks& hooks) {
    engine::install_interrupt_handlers();
    for (;;) {
        ExitCode code = ExitCode::kOk;
        try {
            const auto report = run_heal_pass(deployment, request, screen);
            if (hooks.pass) hooks.pass(report);
            code = report.code;
        } catch (const Failure& failure) {
            // Watching, a pass that met a held lock or an unreadable status waits for the next one.
            if (!request.watch) throw;
            if (hooks.failed) hooks.failed(failure);
            code = failure.code();
        }
        if (!request.watch) return code;
        deployment.clock->sleep_for(*request.watch);  // returns early on Ctrl-C
        if (engine::interrupted()) return ExitCode::kInterrupted;
    }
}

}  // namespace pdctl::ops
