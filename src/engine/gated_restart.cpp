#include "gated_restart.hpp"

#include <fmt/format.h>

#include <mutex>

#include "pdctl/plan/gated_launch.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {
namespace {

Duration since(Clock& clock, TimePoint from) {
    return std::chrono::duration_cast<Duration>(clock.now() - from);
}

// The same stage with its units under their outgoing names: what stops the old ranks.
plan::Stage outgoing_stage(const plan::Stage& plain) {
    plan::Stage outgoing = plain;
    for (auto& unit : outgoing.units) {
        unit.name = plan::outgoing_name(unit.name);
        if (unit.runtime) unit.stop = unit.runtime->stop(unit.name);
    }
    return outgoing;
}

}  // namespace

std::vector<std::string> GatedRestart::rename_units(const plan::Stage& stage, bool aside) {
    std::mutex mutex;
    std::vector<std::string> failures;
    util::for_each_parallel(stage.units.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& unit = stage.units[i];
        const auto outgoing = plan::outgoing_name(unit.name);
        const auto& from = aside ? unit.name : outgoing;
        const auto& to = aside ? outgoing : unit.name;
        const auto command = unit.runtime ? unit.runtime->rename(from, to) : std::nullopt;
        std::string failure;
        if (!command) {
            failure = "its runtime cannot rename a unit";
        } else {
            const auto answer = run_.executor.run(run_.node(unit.node), *command);
            if (!answer.ok())
                failure = answer.transport_error.empty()
                              ? util::first_line(answer.err.empty() ? answer.out : answer.err)
                              : "unreachable: " + answer.transport_error;
        }
        if (failure.empty()) return;
        std::lock_guard lock(mutex);
        failures.push_back(fmt::format("{} on {}: {} -> {}: {}", unit.name, unit.node, from, to, failure));
    });
    return failures;
}

std::optional<StageResult> GatedRestart::wait_at_gate(const plan::Stage& gated, const std::string& gate_url) {
    const auto began = run_.clock.now();
    const auto deadline = began + gated.gate.deadline;
    auto next_liveness = began;
    for (;;) {
        if (interrupted())
            return StageResult{ExitCode::kInterrupted,
                               {gated.role, gated.gate.node, "", 0, "interrupted at the gate", {}, "", {}}};
        const auto now = run_.clock.now();
        if (now >= next_liveness) {
            if (auto dead = starter_.check_liveness(gated)) return dead;
            next_liveness = run_.clock.now() + run_.options.liveness_interval;
        }
        const auto probe = run_.prober.get(gate_url + "/health", run_.options.probe_timeout);
        if (probe.ok(200)) return std::nullopt;
        if (run_.clock.now() >= deadline) {
            const auto last = probe.status ? fmt::format("HTTP {}", probe.status) : probe.error;
            StageResult result;
            result.code = ExitCode::kGateTimeout;
            result.failure = {gated.role,
                              gated.gate.node,
                              "",
                              0,
                              fmt::format("the new ranks' launch gate {}/health did not answer within {} "
                                          "(last: {}): not every rank joined the group",
                                          gate_url, util::format_elapsed(gated.gate.deadline), last),
                              {},
                              "",
                              {}};
            if (!gated.units.empty()) result.failure.log_tail = run_.log_tail(gated.units.front());
            return result;
        }
        run_.clock.sleep_for(std::min(gated.gate.interval, Duration(std::chrono::seconds(1))));
    }
}

ExitCode GatedRestart::undo(const plan::Stage& gated, const StageResult& result, TimePoint began) {
    const auto elapsed = since(run_.clock, began);
    run_.reporter.stage_failed(result.failure, elapsed);
    RunSummary summary{run_.verb, result.code, "", elapsed, {}};
    summary.message = fmt::format("{} was not restarted: {}", gated.role, result.failure.reason);
    const auto stopped = stopper_.stop_stages({&gated}, "cleanup");
    const auto* plain = plain_.find_stage(gated.role);
    if (!stopped.empty()) {
        summary.message += "; the new ranks could not all be stopped: " + stopper_.describe(stopped) +
                           "; the old ones still run, renamed " +
                           (plain && !plain->units.empty() ? plan::outgoing_name(plain->units.front().name)
                                                           : std::string("aside")) +
                           " and so on (see status)";
    } else if (const auto failed = plain ? rename_units(*plain, false) : std::vector<std::string>{"no plan"};
               !failed.empty()) {
        summary.message += "; the new ranks were stopped, but the old ones keep their outgoing names: " +
                           util::join(failed, "; ") + " (they still serve; `pdctl restart --role " +
                           gated.role + "` replaces them)";
    } else {
        summary.message +=
            "; the new ranks were stopped, and the old ones, which served throughout, have "
            "their names back";
    }
    summary.cleaned_up.push_back(gated.role);
    run_.reporter.run_end(summary);
    return result.code;
}

std::vector<StopFailure> GatedRestart::stop_outgoing(const plan::Stage& plain) {
    const auto outgoing = outgoing_stage(plain);
    return stopper_.stop_stages({&outgoing}, "stop");
}

std::optional<ExitCode> GatedRestart::restart_group(std::size_t index, TimePoint began) {
    const auto& gated = run_.plan.stages[index];
    const auto* plain = plain_.find_stage(gated.role);
    if (!plain) throw Failure(ExitCode::kInternal, "gated restart of " + gated.role + ", not in the plan");
    const auto& ports = ports_.at(index);
    const auto gate_url = plan::gate_base_url(gated, ports);

    // What answers the gate later must be the new rank 0: nothing may answer there before it starts (an
    // old rank's control server outlives its own gate).
    if (const auto taken = run_.prober.get(gate_url + "/health", run_.options.probe_timeout); taken.status)
        return run_.end_run(ExitCode::kStageFailed,
                            fmt::format("{}: {}/health answers already (HTTP {}) before the new ranks start: "
                                        "another program holds the gate port; choose another with "
                                        "--gate-port; nothing was touched",
                                        gated.role, gate_url, taken.status),
                            began);
    if (const auto failed = rename_units(*plain, true); !failed.empty()) {
        rename_units(*plain, false);  // back: those that were renamed move, the others say no
        return run_.end_run(ExitCode::kStageFailed,
                            fmt::format("{}: could not rename the old ranks aside ({}); nothing else was "
                                        "touched, and they serve under their own names",
                                        gated.role, util::join(failed, "; ")),
                            began);
    }
    run_.reporter.note(fmt::format(
        "{}: the old ranks keep serving as {}; the new ones start beside them and wait at the launch "
        "gate {} (dist-init port {})",
        gated.role, plan::outgoing_name(plain->units.front().name), gate_url,
        ports.dist_init ? std::to_string(ports.dist_init) : "none, one node"));

    const auto launched_at = run_.clock.now();
    run_.reporter.stage_begin("start", gated);
    if (auto launched = run_.backend.launch(run_.plan, gated, run_.reporter, run_.options.start_hook);
        launched.code != ExitCode::kOk)
        return undo(gated, launched, began);
    if (auto failed = wait_at_gate(gated, gate_url)) return undo(gated, *failed, began);
    run_.reporter.note(
        fmt::format("{}: every new rank joined and waits at the gate after {}; the old "
                    "ranks served meanwhile",
                    gated.role, util::format_elapsed(since(run_.clock, launched_at))));

    // The switch. From here the old ranks are gone, so what fails is a failed start, as with a plain
    // restart. Their GPUs are free once their containers are: the new ranks each hold a CUDA context
    // already, so waiting for "no compute process" would wait for ever.
    const auto down_from = run_.clock.now();
    if (const auto failures = stop_outgoing(*plain); !failures.empty()) {
        StageResult result{failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed,
                           {gated.role,
                            failures.front().node,
                            "",
                            0,
                            "could not stop the old ranks: " + stopper_.describe(failures),
                            {},
                            "",
                            {}}};
        return starter_.end_failed_start(result, {&gated}, began);
    }
    const auto opened = run_.prober.post(gate_url + "/gate/activate", "", "text/plain",
                                         {run_.options.probe_timeout, run_.options.probe_timeout});
    if (!opened.ok(200)) {
        StageResult result{
            ExitCode::kStageFailed,
            {gated.role,
             gated.gate.node,
             "",
             0,
             fmt::format("the launch gate did not open: POST {}/gate/activate answered {}", gate_url,
                         opened.status ? "HTTP " + std::to_string(opened.status) : opened.error),
             {},
             "",
             {}}};
        return starter_.end_failed_start(result, {&gated}, began);
    }
    run_.reporter.note(fmt::format("{}: old ranks stopped in {}; the gate is open", gated.role,
                                   util::format_elapsed(since(run_.clock, down_from))));
    if (const auto ready = starter_.wait_ready(gated, run_.clock.now()); ready.code != ExitCode::kOk)
        return starter_.end_failed_start(ready, {&gated}, began);
    run_.reporter.note(fmt::format(
        "{} serves from its new ranks: down for {} (from the old ranks' stop to its gate); the new ranks "
        "had started {} before the old ones stopped",
        gated.role, util::format_elapsed(since(run_.clock, down_from)),
        util::format_elapsed(std::chrono::duration_cast<Duration>(down_from - launched_at))));
    return std::nullopt;
}

ExitCode GatedRestart::run() {
    const auto began = run_.clock.now();
    run_.reporter.run_begin("restart", run_.plan);
    for (std::size_t i = 0; i < run_.plan.stages.size(); ++i)
        if (const auto ended = restart_group(i, began)) return *ended;
    return run_.end_run(
        ExitCode::kOk,
        fmt::format("{} restarted gated: each served until its new ranks had joined",
                    run_.plan.stages.size() == 1 ? run_.plan.stages.front().role
                                                 : std::to_string(run_.plan.stages.size()) + " groups"),
        began);
}

}  // namespace pdctl::engine
