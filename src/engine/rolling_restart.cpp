// restart --rolling: the groups one at a time, each out of the router while it restarts (SMG and the
// gateway: DELETE /workers/{id}, then POST /workers), or, for MiniLB with --allow-router-restart, the
// router stopped around the restarts with its downtime measured. The steps come from
// plan::rolling_plan; this file only carries them out.

#include "rolling_restart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pdctl/engine/observer.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {
namespace {

constexpr Duration kPollInterval{std::chrono::milliseconds(250)};

const plan::RouterWorker& worker_of(const plan::RollingPlan& rolling, const std::string& stage) {
    if (const auto* worker = rolling.facts.find_worker(stage)) return *worker;
    throw Failure(ExitCode::kInternal, "rolling step names " + stage + ", which the router does not list");
}

// "decode-2 (http://10.0.0.7:30000)" and the other workers of its type: "http://…: ready, …".
std::string others_of_type(const std::vector<health::ListedWorker>& listed,
                           const plan::RouterWorker& worker) {
    std::vector<std::string> others;
    for (const auto& entry : listed)
        if (entry.type == worker.type && entry.url != worker.url)
            others.push_back(
                entry.url + ": " +
                (entry.status.empty() ? (entry.healthy ? "healthy" : "unhealthy") : entry.status));
    return others.empty() ? "none listed" : util::join(others, ", ");
}

// Ctrl-C between taking a group out and putting it back: it runs but gets no requests. Running the
// same rolling restart again finishes the roll (a group the router does not list is restarted and put
// back). `pdctl start` would put it back too, by restarting the router, but after a prefill restarted
// that also re-adds it beside decodes that have not reconnected to it (sglang #16903).
std::string interrupted_out(const plan::RollStep& step, const plan::RollingPlan& rolling) {
    return fmt::format(
        "interrupted while {} {}: it may be out of {}; run the same `restart --rolling` "
        "again to finish the roll",
        step.action == plan::RollAction::kDrain ? "taking out" : "adding back", step.stage, rolling.router);
}

}  // namespace

std::optional<ExitCode> RollingRestart::restart_one(const plan::Stage& stage, TimePoint began) {
    if (const auto failures = stopper_.stop_stages({&stage}, "restart"); !failures.empty()) {
        const auto code = failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed;
        return run_.end_run(code, "could not stop " + stopper_.describe(failures), began);
    }
    std::vector<bool> starting(run_.plan.stages.size(), false);
    starting[static_cast<std::size_t>(&stage - run_.plan.stages.data())] = true;
    std::set<std::string> freed;
    if (stage.kind == config::RoleKind::Sglang)
        for (const auto& unit : stage.units) freed.insert(unit.node);
    if (const auto refused = starter_.run_preflight(starting, freed, began)) return refused;
    std::vector<const plan::Stage*> started;
    const auto result = starter_.start_stages(starting, started);
    if (result.code == ExitCode::kOk) return std::nullopt;
    return starter_.end_failed_start(result, started, began);
}

std::optional<ExitCode> RollingRestart::stop_one(const plan::Stage& stage, TimePoint began) {
    if (const auto failures = stopper_.stop_stages({&stage}, "stop"); !failures.empty()) {
        const auto code = failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed;
        return run_.end_run(code, "could not stop " + stopper_.describe(failures), began);
    }
    if (stage.kind != config::RoleKind::Sglang) return std::nullopt;
    // "Stopped" means its GPUs are free too: what starts on its nodes next needs them.
    std::vector<std::string> nodes;
    for (const auto& unit : stage.units) nodes.push_back(unit.node);
    if (const auto held = stopper_.wait_for_gpu_release(nodes); !held.empty())
        return run_.end_run(
            ExitCode::kGpusBusy,
            fmt::format("{} stopped, but its GPU memory is still in use after {}: {}", stage.role,
                        util::format_elapsed(run_.options.gpu_release_timeout), util::join(held, "; ")),
            began);
    return std::nullopt;
}

std::optional<ExitCode> RollingRestart::drain(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                              health::RouterWorkerApi& api, TimePoint began) {
    const auto& worker = worker_of(rolling, step.stage);
    const auto asked = run_.clock.now();
    std::string error;
    auto listed = api.list(error);
    if (!listed) return run_.end_run(ExitCode::kDegraded, rolling.router + ": " + error, began);
    const auto* entry = health::find_worker(*listed, worker.url);
    if (!entry) {
        run_.reporter.note(
            fmt::format("{} ({}) is not in {}: nothing to drain", step.stage, worker.url, rolling.router));
    } else {
        // Taking it out must leave the router another worker of its kind that serves.
        const bool another =
            std::any_of(listed->begin(), listed->end(), [&](const health::ListedWorker& other) {
                return other.type == worker.type && other.url != worker.url && other.healthy;
            });
        if (!another)
            return run_.end_run(
                ExitCode::kDegraded,
                fmt::format("not taking {} out of {}: no other {} is ready there ({}); nothing of "
                            "{} was touched",
                            step.stage, rolling.router, worker.type, others_of_type(*listed, worker),
                            step.stage),
                began);
        if (const auto refused = api.remove(entry->id); !refused.empty())
            return run_.end_run(ExitCode::kDegraded,
                                rolling.router + " did not take " + step.stage + " out: " + refused, began);
        const auto deadline = asked + run_.options.drain_timeout;
        for (;;) {
            if (interrupted())
                return run_.end_run(ExitCode::kInterrupted, interrupted_out(step, rolling), began);
            listed = api.list(error);
            if (listed && !health::find_worker(*listed, worker.url)) break;
            if (run_.clock.now() >= deadline)
                return run_.end_run(
                    ExitCode::kGateTimeout,
                    fmt::format("{} still lists {} {} after it was asked to remove it{}", rolling.router,
                                step.stage, util::format_elapsed(run_.options.drain_timeout),
                                listed ? "" : " (last answer: " + error + ")"),
                    began);
            run_.clock.sleep_for(kPollInterval);
        }
    }
    const auto out = std::chrono::duration_cast<Duration>(run_.clock.now() - asked);
    run_.reporter.note(
        fmt::format("{} is out of {} after {}; it keeps running {} for the requests it still has "
                    "(--drain-grace)",
                    step.stage, rolling.router, util::format_elapsed(out),
                    util::format_elapsed(run_.options.drain_grace)));
    run_.clock.sleep_for(run_.options.drain_grace);  // returns early on Ctrl-C
    if (interrupted()) return run_.end_run(ExitCode::kInterrupted, interrupted_out(step, rolling), began);
    return std::nullopt;
}

std::optional<ExitCode> RollingRestart::add_back(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                                 health::RouterWorkerApi& api, TimePoint began) {
    const auto& worker = worker_of(rolling, step.stage);
    const auto* stage = run_.plan.find_stage(step.stage);
    const auto asked = run_.clock.now();
    if (const auto refused = api.add(worker.url, worker.type, worker.bootstrap_port); !refused.empty())
        return run_.end_run(ExitCode::kDegraded,
                            fmt::format("{} did not take {} back: {}; {} runs but gets no requests",
                                        rolling.router, step.stage, refused, step.stage),
                            began);
    // The router checks a new worker before it sends it requests: as long as the group's own gate.
    const auto deadline = asked + (stage ? stage->gate.deadline : run_.options.drain_timeout);
    std::string last = "not listed yet";
    for (;;) {
        if (interrupted()) return run_.end_run(ExitCode::kInterrupted, interrupted_out(step, rolling), began);
        std::string error;
        const auto listed = api.list(error);
        const auto* entry = listed ? health::find_worker(*listed, worker.url) : nullptr;
        if (entry && entry->healthy) break;
        if (!listed)
            last = error;
        else if (entry)
            last = entry->status.empty() ? "listed, not healthy" : "status " + entry->status;
        if (run_.clock.now() >= deadline)
            return run_.end_run(
                ExitCode::kGateTimeout,
                fmt::format("{} did not call {} ready within {} (last: {}); {} runs but gets no "
                            "requests",
                            rolling.router, step.stage,
                            util::format_elapsed(std::chrono::duration_cast<Duration>(deadline - asked)),
                            last, step.stage),
                began);
        run_.clock.sleep_for(kPollInterval);
    }
    run_.reporter.note(
        fmt::format("{} is back in {} and ready after {}", step.stage, rolling.router,
                    util::format_elapsed(std::chrono::duration_cast<Duration>(run_.clock.now() - asked))));
    return std::nullopt;
}

ExitCode RollingRestart::run(const plan::RollingPlan& rolling) {
    run_.verb = "restart";
    const auto began = run_.clock.now();
    run_.reporter.run_begin("restart", run_.plan);
    health::RouterWorkerApi api(run_.prober, rolling.facts.url, run_.options.probe_timeout);
    if (rolling.facts.worker_api()) {
        std::string error;
        if (!api.list(error))
            return run_.end_run(
                ExitCode::kDegraded,
                fmt::format("{} does not list its workers ({}): a rolling restart needs it serving; "
                            "nothing was touched",
                            rolling.router, error),
                began);
    }
    std::optional<TimePoint> router_down;
    Duration downtime{0};
    int restarted = 0;  // restart steps; a decode restarts once per rolled prefill
    std::set<std::string> groups;
    for (std::size_t i = 0; i < rolling.steps.size(); ++i) {
        const auto& step = rolling.steps[i];
        run_.reporter.note(
            fmt::format("step {}/{}: {}", i + 1, rolling.steps.size(), plan::describe(step, rolling)));
        const auto* stage = run_.plan.find_stage(step.stage);
        if (!stage)
            throw Failure(ExitCode::kInternal, "rolling step names " + step.stage + ", not in the plan");
        std::optional<ExitCode> ended;
        switch (step.action) {
            case plan::RollAction::kDrain:
                ended = drain(step, rolling, api, began);
                break;
            case plan::RollAction::kAdd:
                ended = add_back(step, rolling, api, began);
                break;
            case plan::RollAction::kRestart:
                ended = restart_one(*stage, began);
                if (!ended) {
                    ++restarted;
                    groups.insert(stage->role);
                }
                break;
            case plan::RollAction::kRouterStop:
                if (const auto failures = stopper_.stop_stages({stage}, "stop"); !failures.empty()) {
                    ended = run_.end_run(
                        failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed,
                        "could not stop " + stopper_.describe(failures), began);
                } else {
                    router_down = run_.clock.now();
                }
                break;
            case plan::RollAction::kStop:
                ended = stop_one(*stage, began);
                break;
            case plan::RollAction::kStart:
                // A group that runs with this config already (a rollback of a step that stopped
                // before its stop) is left serving.
                if (starter_.stage_is_current(*stage, observe_all(run_.plan, run_.executor))) {
                    run_.reporter.note(stage->role + " runs with this config already and is ready");
                    break;
                }
                ended = restart_one(*stage, began);
                break;
            case plan::RollAction::kRouterStart:
                ended = restart_one(*stage, began);
                if (!ended && router_down) {
                    downtime = std::chrono::duration_cast<Duration>(run_.clock.now() - *router_down);
                    run_.reporter.note(
                        fmt::format("{} was down for {} (from its stop until its gate passed again)",
                                    stage->role, util::format_elapsed(downtime)));
                }
                break;
        }
        if (ended) {
            if (router_down && step.action != plan::RollAction::kRouterStart)
                run_.reporter.note(rolling.router + " is stopped: `pdctl start` brings it back");
            if (!rolling.router_restart && *ended != ExitCode::kInterrupted)
                run_.reporter.note(
                    fmt::format("the roll stopped at step {}/{}; once the cause is fixed, the same "
                                "`restart --rolling` finishes it (a group the router does not "
                                "list is restarted and put back)",
                                i + 1, rolling.steps.size()));
            return *ended;
        }
    }
    if (!rolling.done.empty()) return run_.end_run(ExitCode::kOk, rolling.done, began);
    const auto count = static_cast<int>(groups.size()) == restarted
                           ? fmt::format("{} groups", restarted)
                           : fmt::format("{} groups ({} restarts)", groups.size(), restarted);
    const auto message =
        rolling.router_restart
            ? fmt::format("{} restarted; {} was down for {}", count, rolling.router,
                          util::format_elapsed(downtime))
            : fmt::format("{} restarted one at a time, each out of {} meanwhile", count, rolling.router);
    return run_.end_run(ExitCode::kOk, message, began);
}

}  // namespace pdctl::engine
