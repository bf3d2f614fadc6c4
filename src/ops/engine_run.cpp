#include "pdctl/ops/engine_run.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/tee_reporter.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/ops/intent_store.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/ops/kernel_cache.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/ops/pace_reporter.hpp"
#include "pdctl/ops/prewarm.hpp"
#include "pdctl/ops/router_membership.hpp"
#include "pdctl/ops/take_over.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::ops {
namespace {

// `start --take-over`, under the lock: what holds the plan's ports, GPUs or images without being pdctl's
// is found and stopped before the first stage; a node that cannot be probed stops the run, since what
// it holds is unknown.
ExitCode take_over(const Deployment& deployment, const plan::Plan& plan, engine::Reporter& journaled) {
    const auto scan = scan_for_take_over(deployment, plan);
    for (const auto& node : scan.nodes)
        if (!node.error.empty()) journaled.note("take-over: " + node.node + " " + node.error);
    if (scan.code() != ExitCode::kOk) return scan.code();
    if (scan.holders() == 0) {
        journaled.note("take-over: nothing on the nodes of the plan holds its ports, GPUs or images");
        return ExitCode::kOk;
    }
    return stop_foreign_holders(deployment, scan, journaled);
}

// Fault injection for the reliability tests (docs/reliability.md): PDCTL_TEST_SIGKILL_AT=MOMENT:UNIT,
// MOMENT being before-start or after-start, makes pdctl SIGKILL itself right before UNIT's start
// command is sent or right after it returned, the two sides of the window in which a unit's program
// may run without pdctl knowing. Unset (always, outside tests), it does nothing.
std::function<void(engine::StartMoment, const plan::Unit&)> sigkill_hook_from_environment() {
    const char* value = std::getenv("PDCTL_TEST_SIGKILL_AT");
    if (!value || !*value) return {};
    const std::string spec(value);
    const auto colon = spec.find(':');
    const std::string moment = spec.substr(0, colon);
    const std::string unit = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if ((moment != "before-start" && moment != "after-start") || unit.empty())
        throw Failure(ExitCode::kUsage,
                      "PDCTL_TEST_SIGKILL_AT=" + spec + " is not before-start:UNIT or after-start:UNIT");
    const auto when =
        moment == "before-start" ? engine::StartMoment::kBeforeCommand : engine::StartMoment::kAfterCommand;
    return [when, unit](engine::StartMoment now, const plan::Unit& starting) {
        if (now == when && starting.name == unit) ::kill(::getpid(), SIGKILL);
    };
}

// The stages a rolling restart touches, and its router, in plan order.
plan::Plan rolling_stages(const plan::Plan& whole, const plan::RollingPlan& rolling) {
    std::set<std::string> named{rolling.router};
    for (const auto& step : rolling.steps) named.insert(step.stage);
    plan::Plan part = whole;
    part.stages.clear();
    for (const auto& stage : whole.stages)
        if (named.count(stage.role)) part.stages.push_back(stage);
    return part;
}

engine::EngineOptions engine_options(const EngineRequest& request) {
    engine::EngineOptions options;
    options.keep_on_failure = request.keep_on_failure;
    options.start_hook = sigkill_hook_from_environment();
    options.gpu_release_timeout = request.gpu_release_timeout;
    options.drain_grace = request.drain_grace;
    options.transfer_error_limit = request.transfer_error_limit;
    // The backend runs the preflight and the GPU release wait, where it can (a SLURM job that has left
    // squeue has released its GRES).
    options.preflight_skipped = request.skip_preflight;
    options.scoped = !request.scope.empty() || request.steps.has_value();
    return options;
}

ExitCode run_verb(engine::Engine& engine, EngineVerb verb) {
    switch (verb) {
        case EngineVerb::kStart:
            return engine.start();
        case EngineVerb::kStop:
            return engine.stop();
        case EngineVerb::kRestart:
            return engine.restart();
    }
    return ExitCode::kInternal;
}

}  // namespace

std::string to_string(EngineVerb verb) {
    switch (verb) {
        case EngineVerb::kStart:
            return "start";
        case EngineVerb::kStop:
            return "stop";
        case EngineVerb::kRestart:
            return "restart";
    }
    return "?";
}

namespace {

// The stages the request acts on: a rolling restart's steps (and its router), else the scope with its
// closure. Throws Failure(kUsage) for a scope or a roll that cannot be.
struct Target {
    std::optional<plan::RollingPlan> rolling;
    plan::ScopedPlan scoped;
};

Target target_of(const Deployment& deployment, const EngineRequest& request) {
    Target target;
    if (request.gated && (request.rolling || request.steps))
        throw Failure(ExitCode::kUsage,
                      "restart --gated and --rolling are two ways to restart a group: choose one");
    if (request.gated && request.scope.empty())
        throw Failure(
            ExitCode::kUsage,
            "restart --gated replaces decode groups one at a time: name them with --role or --group");
    if (request.steps)
        target.rolling = *request.steps;
    else if (request.rolling)
        target.rolling = plan::rolling_plan(deployment.plan, request.scope, request.allow_router_restart);
    target.scoped = target.rolling
                        ? plan::ScopedPlan{rolling_stages(deployment.plan, *target.rolling), {}}
                        : plan::scope_plan(deployment.plan, request.scope, to_string(request.verb));
    // What the operators stopped on purpose stays stopped, even when a restart's closure would take it
    // along (heal restarting a prefill whose decode is down for maintenance).
    if (!request.leave_stopped.empty()) {
        auto& stages = target.scoped.plan.stages;
        stages.erase(std::remove_if(stages.begin(), stages.end(),
                                    [&](const plan::Stage& stage) {
                                        return std::find(request.leave_stopped.begin(),
                                                         request.leave_stopped.end(),
                                                         stage.role) != request.leave_stopped.end();
                                    }),
                     stages.end());
    }
    return target;
}

std::vector<std::string> stage_names(const plan::Plan& plan) {
    std::vector<std::string> names;
    for (const auto& stage : plan.stages) names.push_back(stage.role);
    return names;
}

// The operator's verb is their intent: a stop marks its stages stopped on purpose (heal leaves them),
// a start or restart clears the marks of what it starts (a whole one, every mark). Recorded before the
// stages are touched, so that an interrupted stop is still one the operator meant. A coordinator that
// cannot take it costs the record, never the run.
void record_intent(const Deployment& deployment, const EngineRequest& request, const plan::Plan& target,
                   JournalingReporter& journal) {
    namespace intent = state::intent;
    const auto stages = stage_names(target);
    std::string error;
    if (request.verb == EngineVerb::kStop) {
        const auto words = intent::scope_words(request.scope.roles, request.scope.groups);
        error = change_intent(
            deployment, journal, "stopped", stages, [&](intent::Intent& now, const intent::Act& act) {
                return intent::mark_stopped(now, stages, {act, "pdctl stop" + words, "pdctl start" + words});
            });
        if (!error.empty())
            journal.note(error + ": `pdctl heal` may start again what this stops; stop it once more later");
        return;
    }
    const bool whole = request.scope.empty();
    error =
        change_intent(deployment, journal, "started", stages, [&](intent::Intent& now, const intent::Act&) {
            if (!whole) return intent::clear_stopped(now, stages);
            const bool any = !now.stopped.empty();
            now.stopped.clear();
            return any;
        });
    if (!error.empty()) journal.note(error + ": what was stopped on purpose may still read so");
}

ExitCode run_target(const Deployment& deployment, const EngineRequest& request, Target target,
                    engine::Reporter& journaled) {
    auto& backend = *deployment.backend;
    auto& prober = *deployment.prober;
    auto& clock = *deployment.clock;
    const auto options = engine_options(request);
    auto& scoped = target.scoped;
    for (const auto& why : scoped.closure) journaled.note(why);
    if (request.take_over) {
        const auto taken = take_over(deployment, scoped.plan, journaled);
        if (taken != ExitCode::kOk) return taken;
    }
    if (request.verb == EngineVerb::kStop) {
        if (!request.scope.empty())
            leave_routers(deployment.plan, scoped.plan, prober, clock, journaled, std::chrono::seconds(5));
        engine::Engine engine(scoped.plan, backend, prober, clock, journaled, options);
        return run_verb(engine, request.verb);
    }
    // Past starts, read under the lock: the learned deadlines and the pace warnings of this one.
    // A journal that cannot be read costs the learning, never the start.
    JournalText journal;
    try {
        journal = read_journal(deployment);
    } catch (const Failure& failure) {
        spdlog::warn("{}; the configured gate deadlines apply", failure.what());
    }
    auto history = timeline::start_history(timeline::read_timelines(journal.text));
    timeline::apply_deadlines(scoped.plan, history, request.deadline_floor, request.deadline_policy);
    timeline::apply_quick_windows(scoped.plan, history);
    for (const auto& stage : scoped.plan.stages)
        if (timeline::deadline_learned(stage.gate))
            journaled.note(fmt::format("{} gate deadline {}: {}", stage.role,
                                       util::format_elapsed(stage.gate.deadline), stage.gate.deadline_note));
    // One warms, all benefit: a node that lacks its role's kernels gets them from a peer of the same
    // fingerprint before anything starts. Costs one look per cache node when all have theirs.
    if (uses_kernel_caches(scoped.plan))
        for (const auto& line : spread_notes(spread_caches_in(deployment, scoped.plan, kCacheSpreadPort)))
            journaled.note(line);
    // Started now, so that the reading overlaps the preflight and the stages before the first rank.
    std::optional<Prewarm> prewarm;
    if (request.prewarm && request.verb != EngineVerb::kStop) prewarm.emplace(deployment, scoped.plan);
    auto run_options = options;
    if (prewarm) {
        run_options.start_hook = [hook = options.start_hook, &prewarm](engine::StartMoment moment,
                                                                       const plan::Unit& unit) {
            if (moment == engine::StartMoment::kBeforeCommand) prewarm->wait_for(unit.node);
            if (hook) hook(moment, unit);
        };
    }
    PaceReporter paced(journaled, std::move(history));
    if (prewarm) paced.set_closing_notes([&prewarm] { return prewarm_notes(prewarm->results()); });
    engine::Reporter* sink = &paced;
    std::optional<engine::TeeReporter> recorded;
    if (request.recorder) sink = &recorded.emplace(*request.recorder, paced);
    engine::Engine engine(scoped.plan, backend, prober, clock, *sink, run_options);
    const auto code = target.rolling  ? engine.rolling_restart(*target.rolling)
                      : request.gated ? engine.gated_restart(request.gate_port)
                                      : run_verb(engine, request.verb);
    if (target.rolling) return code;
    // A group started on its own (after `stop --group`, which took it out) joins its router's list again.
    if (code != ExitCode::kOk || request.scope.empty()) return code;
    if (const auto failed =
            join_routers(deployment.plan, scoped.plan, prober, journaled, std::chrono::seconds(5));
        !failed.empty()) {
        journaled.note(failed +
                       "; it runs but the router does not send to it (`pdctl heal` puts the list right)");
        return ExitCode::kDegraded;
    }
    return code;
}

}  // namespace

ExitCode run_engine(const Deployment& deployment, const EngineRequest& request, engine::Reporter& screen) {
    auto target = target_of(deployment, request);
    engine::install_interrupt_handlers();
    // Under the deploy lock, with every event journaled (docs/lock-and-history.md).
    // A stop must never depend on one node: without the coordinator it stops what it reaches, unlocked.
    const auto unreachable = request.verb == EngineVerb::kStop
                                 ? state::WhenCoordinatorUnreachable::kGoOnUnlocked
                                 : state::WhenCoordinatorUnreachable::kRefuse;
    const auto code = run_journaled_verb(
        deployment, screen, to_string(request.verb),
        [&](JournalingReporter& journaled) {
            record_intent(deployment, request, target.scoped.plan, journaled);
            return run_target(deployment, request, std::move(target), journaled);
        },
        unreachable);
    // A whole stop is the deployment's last verb: the OpenSSH masters it used would otherwise stay for
    // their idle time (docs/ssh.md). After the lock is released, which needs the coordinator's.
    if (request.verb == EngineVerb::kStop && request.scope.empty() && deployment.ssh_transports)
        if (const auto closed = deployment.ssh_transports->close_masters(); closed > 0)
            spdlog::info("closed {} OpenSSH master connection(s)", closed);
    return code;
}

ExitCode run_engine_locked(const Deployment& deployment, const EngineRequest& request,
                           engine::Reporter& journaled) {
    return run_target(deployment, request, target_of(deployment, request), journaled);
}

}  // namespace pdctl::ops
