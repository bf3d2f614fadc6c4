#include "starter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>

#include "kv_path_failure.hpp"
#include "pdctl/engine/gate_probe.hpp"
#include "pdctl/engine/router_membership_drift.hpp"
#include "pdctl/runtime/failure_hint.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"
#include "waiting.hpp"

namespace pdctl::engine {
namespace {

// How long a dead unit's verdict waits for a round in which every unit of its group was listed.
constexpr Duration kBlindVerdictGrace{std::chrono::seconds(10)};
// The most a slow liveness round spaces out the next. A round is slow on a loaded node, and also when a
// node stopped answering: its inspect waits out its timeout, and the round after it (which reconnects,
// and finds the node unreachable) must not come minutes later.
constexpr Duration kMaxLivenessSpacing{std::chrono::seconds(15)};

// "HTTP 200, but prefill rank 2 on n3 was not seen running (inspect timed out)".
std::string unseen_answer(const std::string& answer, const plan::Stage& stage,
                          const std::vector<UnseenUnit>& unseen) {
    const auto& first = unseen.front();
    std::string text = fmt::format("{}, but {} rank {} on {} was not seen running ({})", answer, stage.role,
                                   first.unit->rank, first.unit->node, first.why);
    if (unseen.size() > 1) text += fmt::format(", nor {} more", unseen.size() - 1);
    return text;
}

}  // namespace

bool Starter::stage_is_current(const plan::Stage& stage, const Observation& observation) {
    for (const auto& unit : stage.units) {
        const auto* found = observation.find(unit.node, unit.name);
        if (!found || !found->state.running) return false;
        auto config = found->state.labels.find("pdctl.config");
        if (config == found->state.labels.end() || config->second != unit.fingerprint) return false;
    }
    if (!probe_gate(stage.gate, run_.prober, {run_.options.probe_timeout, run_.options.generate_timeout})
             .passed)
        return false;
    if (!stage.router || !stage.router->worker_api()) return true;
    // Its fingerprint leaves its workers out (they change at run time): they are read from it. A list
    // other than the config's is put right the way a changed command line is, by starting it again.
    std::string error;
    const auto listed =
        health::RouterWorkerApi(run_.prober, stage.router->url, run_.options.probe_timeout).list(error);
    const auto drift = listed ? membership_drift(*stage.router, *listed) : MembershipDrift{};
    if (listed && drift.empty()) return true;
    run_.reporter.note(fmt::format("{} restarts: it {}", stage.role,
                                   listed ? drift.describe() : "does not list its workers (" + error + ")"));
    return false;
}

std::vector<bool> Starter::stages_to_start(const Observation& observation) {
    const auto& stages = run_.plan.stages;
    std::vector<bool> starting(stages.size(), false);
    std::vector<bool> ran(stages.size(), false);  // some unit of it is on its node: a start replaces it
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const auto& stage = stages[i];
        for (const auto& unit : stage.units) ran[i] = ran[i] || observation.find(unit.node, unit.name);
        if (!stage_is_current(stage, observation)) {
            starting[i] = true;
            continue;
        }
        // A dependency that is replaced restarts this stage too (a decode keeps its connections to the
        // prefill it knew: sglang #16903). A dependency that is new (a group just added) does not.
        for (const auto& edge : stage.edges) {
            const auto* dependency = run_.plan.find_stage(edge.role);
            const auto j = dependency ? static_cast<std::size_t>(dependency - stages.data()) : stages.size();
            if (j < stages.size() && starting[j] && ran[j]) {
                starting[i] = true;
                run_.reporter.note(
                    fmt::format("{} restarts: {}, which it depends on, is replaced", stage.role, edge.role));
                break;
            }
        }
        if (!starting[i]) run_.reporter.stage_skipped(stage, "already running with this config and ready");
    }
    return starting;
}

std::optional<ExitCode> Starter::refuse_unready_dependencies(TimePoint began) {
    for (const auto& stage : run_.plan.stages) {
        for (const auto& edge : stage.edges) {
            if (run_.plan.find_stage(edge.role) || edge.gate.url.empty()) continue;
            const auto probe = probe_gate(edge.gate, run_.prober,
                                          {run_.options.probe_timeout, run_.options.generate_timeout});
            if (probe.passed) continue;
            run_.reporter.run_end(
                {"start",
                 ExitCode::kDegraded,
                 fmt::format("{} depends on {}, which this run does not start and which is not "
                             "ready ({} answers {}); start it first, or start without "
                             "--role/--group",
                             stage.role, edge.role, edge.gate.url, probe.answer),
                 std::chrono::duration_cast<Duration>(run_.clock.now() - began),
                 {}});
            return ExitCode::kDegraded;
        }
    }
    return std::nullopt;
}

ExitCode Starter::start() {
    const auto began = run_.clock.now();
    run_.reporter.run_begin("start", run_.plan);
    const auto observation = observe_all(run_.plan, run_.executor);
    for (const auto& [name, node_state] : observation.nodes) {
        if (node_state.transport_error.empty() && node_state.inspect_error.empty()) continue;
        const auto& n = run_.node(name);
        // A node whose units cannot be listed may run them: starting beside them would double them.
        const std::string message =
            node_state.transport_error.empty()
                ? fmt::format("{} ({}) did not list its units: {}; nothing was started", name, n.address,
                              node_state.inspect_error)
                : fmt::format("{} ({}) is unreachable: {}", name, n.address, node_state.transport_error);
        run_.reporter.run_end({"start", ExitCode::kUnreachable, message, {}, {}});
        return ExitCode::kUnreachable;
    }

    if (run_.options.scoped)
        if (const auto refused = refuse_unready_dependencies(began)) return *refused;
    // Units the config no longer names go first: a removed group may hold the ports and GPUs of a
    // group that replaces it on the same nodes. (A scoped run sees only part of the config.)
    std::set<std::string> freed;
    if (const auto failures =
            run_.options.scoped ? std::vector<StopFailure>{} : stopper_.stop_leftovers(observation, freed);
        !failures.empty()) {
        const auto elapsed = std::chrono::duration_cast<Duration>(run_.clock.now() - began);
        const auto code = failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed;
        run_.reporter.run_end({"start", code, "could not stop " + stopper_.describe(failures), elapsed, {}});
        return code;
    }

    const auto starting = stages_to_start(observation);
    if (std::none_of(starting.begin(), starting.end(), [](bool s) { return s; })) {
        run_.reporter.run_end({"start",
                               ExitCode::kOk,
                               freed.empty()
                                   ? "already running and healthy; nothing changed"
                                   : "already running and healthy; units no longer in the config stopped",
                               std::chrono::duration_cast<Duration>(run_.clock.now() - began),
                               {}});
        return ExitCode::kOk;
    }

    // Leftovers of the stages to (re)start (exited units, drifted config) go first, newest stage first.
    std::vector<const plan::Stage*> stale;
    for (std::size_t i = run_.plan.stages.size(); i-- > 0;) {
        if (!starting[i]) continue;
        for (const auto& unit : run_.plan.stages[i].units) {
            if (observation.find(unit.node, unit.name)) {
                stale.push_back(&run_.plan.stages[i]);
                break;
            }
        }
    }
    if (!stale.empty()) {
        // A leftover that cannot be stopped still holds its ports and GPUs: starting beside it would
        // fail later and less clearly, so the start ends here, naming it.
        const auto failures = stopper_.stop_stages(stale, "replace");
        if (!failures.empty()) {
            const auto elapsed = std::chrono::duration_cast<Duration>(run_.clock.now() - began);
            const auto code = failures.front().unreachable ? ExitCode::kUnreachable : ExitCode::kStopFailed;
            run_.reporter.run_end(
                {"start", code, "could not replace " + stopper_.describe(failures), elapsed, {}});
            return code;
        }
    }
    for (const auto* stage : stale)
        if (stage->kind == config::RoleKind::Sglang)
            for (const auto& unit : stage->units) freed.insert(unit.node);

    if (const auto refused = run_preflight(starting, freed, began)) return *refused;

    std::vector<const plan::Stage*> started;
    const auto result = start_stages(starting, started);
    if (result.code != ExitCode::kOk) return end_failed_start(result, started, began);
    run_.reporter.run_end({"start",
                           ExitCode::kOk,
                           "all stages ready",
                           std::chrono::duration_cast<Duration>(run_.clock.now() - began),
                           {}});
    return ExitCode::kOk;
}

ExitCode Starter::end_failed_start(const StageResult& result, const std::vector<const plan::Stage*>& started,
                                   TimePoint began) {
    const auto elapsed = std::chrono::duration_cast<Duration>(run_.clock.now() - began);
    run_.reporter.stage_failed(result.failure, elapsed);
    RunSummary summary{run_.verb, result.code, "", elapsed, {}};
    summary.message = fmt::format("{} failed: {}", result.failure.role, result.failure.reason);
    if (!run_.options.keep_on_failure) {
        // A node that just became unreachable is left out: its stop would only wait out the SSH
        // timeouts. Its units are named for the operator instead.
        std::set<std::string> unreachable;
        if (result.code == ExitCode::kUnreachable) unreachable.insert(result.failure.node);
        const auto failures = stopper_.stop_stages(started, "cleanup", unreachable);
        for (const auto* done : started) summary.cleaned_up.push_back(done->role);
        if (!failures.empty())
            summary.message +=
                "; the clean-up could not stop " + stopper_.describe(failures) + " (see status)";
        for (const auto& name : unreachable)
            summary.message +=
                "; " + name + " is unreachable: its units were not stopped, run `pdctl stop` once it answers";
    } else {
        run_.reporter.note("--keep-on-failure: leaving the started units running for inspection");
    }
    run_.reporter.run_end(summary);
    return result.code;
}

std::optional<StageResult> Starter::check_liveness(const plan::Stage& stage,
                                                   std::optional<TimePoint>* dead_since,
                                                   std::vector<UnseenUnit>* unseen) {
    if (unseen) unseen->clear();
    std::vector<std::string> nodes;
    for (const auto& unit : stage.units) nodes.push_back(unit.node);
    const auto observation = observe(run_.plan, run_.executor, nodes);
    std::vector<StageResult> dead;
    std::vector<long long> finished;  // per dead unit: when it ended (node clock), 0 = unknown
    bool blind = false;               // a unit of the group could not be listed this round
    for (const auto& unit : stage.units) {
        const auto& node_state = observation.nodes.at(unit.node);
        StageResult result;
        result.failure = {stage.role, unit.node, unit.address, unit.rank, "", {}, "", {}};
        if (!node_state.transport_error.empty()) {
            result.code = ExitCode::kUnreachable;
            result.failure.reason = "became unreachable: " + node_state.transport_error;
            return result;
        }
        // The node answered but its listing did not come back (a slow node timed the inspect out): that
        // says nothing about the unit, so it is not dead; the next round asks again, and the gate's
        // deadline still bounds the wait.
        if (!node_state.inspect_error.empty()) {
            blind = true;
            if (unseen) unseen->push_back({&unit, node_state.inspect_error});
            continue;
        }
        const auto* found = observation.find(unit.node, unit.name);
        if (found && found->state.running) continue;
        result.code = ExitCode::kStageFailed;
        if (!found) {
            result.failure.reason = "is not running (no trace of it on the node)";
        } else if (!found->state.exit_code.empty()) {
            result.failure.reason = fmt::format("exited (code {})", found->state.exit_code);
        } else {
            result.failure.reason = "exited";
        }
        if (found && !found->state.scheduler.empty())
            result.failure.reason += "; SLURM: " + found->state.scheduler;
        result.failure.log_tail = run_.log_tail(unit);
        result.failure.hint = runtime::hint_from_log(result.failure.log_tail);
        dead.push_back(std::move(result));
        finished.push_back(found ? found->state.finished_epoch : 0);
    }
    if (dead.empty()) return std::nullopt;
    // A unit that could not be listed may be the one that died first, its group following it down:
    // blaming the first dead unit in sight would name a consequence. Wait for a round that sees the
    // whole group, for a while: dead units stay dead, and a node that stays blind is named anyway.
    if (blind && dead_since) {
        if (!*dead_since) *dead_since = run_.clock.now();
        if (run_.clock.now() - **dead_since < kBlindVerdictGrace) return std::nullopt;
    }
    // Nor is a round one instant: each node answers its own inspect, so a node listed early can show
    // the rank that failed still running while a node listed later shows a rank its group already
    // stopped (srun's --kill-on-bad-exit, "Rank 2 scheduler is dead": it ended without an error of its
    // own). Such a verdict waits one round, which sees whatever ended before it.
    const bool cause_in_sight = std::any_of(dead.begin(), dead.end(), [&](const StageResult& result) {
        return runtime::log_shows_own_failure(result.failure.log_tail, stage.kind);
    });
    if (!cause_in_sight && dead.size() < stage.units.size() && dead_since && !*dead_since) {
        *dead_since = run_.clock.now();
        return std::nullopt;
    }
    // One rank failing takes its group down within seconds ("Rank 2 scheduler is dead" on rank 0,
    // a lost NCCL connection on the others). When a check finds several dead (a slow round on a busy
    // node can see the whole group gone), the cause is the one that ended first, by the times its
    // node recorded; among those that ended in the same second, or when no time is known, the one
    // whose log has a failure of its own. A unit without a recorded end was killed whole (its
    // supervisor too: SLURM's SIGKILL of the other ranks of a failed task), not the first to fail.
    long long first = 0;
    for (const auto when : finished)
        if (when > 0 && (first == 0 || when < first)) first = when;
    std::vector<std::size_t> earliest;
    for (std::size_t i = 0; i < dead.size(); ++i)
        if (first == 0 || finished[i] == first) earliest.push_back(i);
    auto cause = std::find_if(earliest.begin(), earliest.end(), [&](std::size_t i) {
        return runtime::log_shows_own_failure(dead[i].failure.log_tail, stage.kind);
    });
    return std::optional<StageResult>(std::move(dead[cause == earliest.end() ? earliest.front() : *cause]));
}

std::optional<StageResult> Starter::poll_gate(WaitingStage& waiting) {
    const auto& stage = waiting.stage;
    const auto& gate = stage.gate;
    const auto now = run_.clock.now();
    if (now >= waiting.next_liveness) {
        if (auto dead = check_liveness(stage, &waiting.dead_since, &waiting.unseen)) return dead;
        // A round that took long (many nodes behind one bastion, busy nodes, test nodes sharing two
        // cores) spaces out the next: listing the units takes at most a fifth of the wait, where a
        // round longer than the interval had the next one start at once, without a pause.
        const auto after = run_.clock.now();
        const auto spacing =
            std::min(kMaxLivenessSpacing, std::chrono::duration_cast<Duration>(4 * (after - now)));
        waiting.next_liveness = after + std::max(run_.options.liveness_interval, spacing);
    }
    if (now >= waiting.next_probe) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(waiting.deadline - now);
        const auto probe =
            probe_gate(gate, run_.prober,
                       {std::min(run_.options.probe_timeout, gate.interval),
                        std::clamp(left, std::chrono::milliseconds(1000), run_.options.generate_timeout)});
        waiting.gate_passed = probe.passed;
        // The gate passed while a unit was unseen: one more round, now. Until one sees every unit the
        // stage is not ready (a node whose link went down stops answering; its rank 0's peers may not
        // notice for minutes), and the gate's deadline bounds the wait.
        if (probe.passed && !waiting.unseen.empty()) {
            if (auto dead = check_liveness(stage, &waiting.dead_since, &waiting.unseen)) return dead;
            waiting.next_liveness = run_.clock.now() + run_.options.liveness_interval;
        }
        if (probe.passed && waiting.unseen.empty()) {
            // One last look at every log: the phases since the previous poll (the last ones are often
            // seconds long) are dated by their lines and recorded, so the timeline reaches the gate.
            if (run_.options.progress_interval.count() > 0)
                waiting.progress.poll(run_.executor, run_.clock.now(), run_.reporter);
            run_.reporter.stage_ready(stage,
                                      std::chrono::duration_cast<Duration>(run_.clock.now() - waiting.began));
            return StageResult{};
        }
        // A request the stack answered with a KV path failure, the same again and again: no waiting
        // will change it.
        if (kv_path_failure_limit_reached(waiting, probe, run_.options.transfer_error_limit))
            return kv_path_failure_result(run_, waiting, probe);
        const std::string answer =
            probe.passed ? unseen_answer(probe.answer, stage, waiting.unseen) : probe.answer;
        // A probe that ran into the stage's deadline unanswered was cut short by pdctl, not answered by
        // the server: the answer before it stays the one the failure names.
        const bool cut_short =
            probe.unanswered && run_.clock.now() >= waiting.deadline && !waiting.last_answer.empty();
        if (cut_short) {
            waiting.cut_short = answer;
        } else if (answer != waiting.last_answer) {
            run_.reporter.gate_waiting(stage, answer,
                                       std::chrono::duration_cast<Duration>(now - waiting.began));
            waiting.last_answer = answer;
        }
        waiting.next_probe =
            now + gate.probe_interval(std::chrono::duration_cast<Duration>(now - waiting.began));
    }
    if (run_.options.progress_interval.count() > 0 && now >= waiting.next_progress) {
        waiting.progress.poll(run_.executor, now, run_.reporter);
        waiting.next_progress = now + run_.options.progress_interval;
    }
    if (run_.clock.now() >= waiting.deadline) {
        StageResult result;
        result.code = ExitCode::kGateTimeout;
        if (waiting.gate_passed && !waiting.unseen.empty()) {
            const auto& unseen = waiting.unseen.front();
            const auto& unit = *unseen.unit;
            result.failure = {stage.role, unit.node, unit.address, unit.rank, "", {}, "", {}};
            result.failure.reason =
                fmt::format("gate {} passed, but the rank was not seen running within {} ({})", gate.why,
                            util::format_elapsed(gate.deadline), unseen.why);
            return result;
        }
        const auto& rank0 = stage.units.front();
        result.failure = {stage.role, rank0.node, rank0.address, rank0.rank, "", {}, "", {}};
        result.failure.reason =
            fmt::format("gate {} did not pass within {} (last answer: {}{})", gate.why,
                        util::format_elapsed(gate.deadline), waiting.last_answer,
                        waiting.cut_short.empty() ? ""
                                                  : "; the probe after it, cut short by the "
                                                    "deadline: " +
                                                        waiting.cut_short);
        // A rank the others wait for is the cause, not rank 0's closed port: name it and show its log.
        const auto stalled = waiting.progress.stalled();
        const auto& culprit = stalled.empty() ? rank0 : *stalled.front().unit;
        if (!stalled.empty()) {
            result.failure.node = culprit.node;
            result.failure.address = culprit.address;
            result.failure.rank = culprit.rank;
            for (const auto& rank : stalled)
                result.failure.reason +=
                    fmt::format("; rank {} on {} {}", rank.unit->rank, rank.unit->node, rank.why);
        }
        if (const auto job = run_.backend.scheduler_state(run_.plan, culprit); !job.empty())
            result.failure.reason += "; SLURM: " + job;
        result.failure.log_tail = run_.log_tail(culprit);
        result.failure.hint = runtime::hint_from_log(result.failure.log_tail);
        if (!stalled.empty() && result.failure.hint.empty())
            result.failure.hint =
                "`pdctl stack --group " + stage.role + "` shows where each rank is" +
                (run_.options.keep_on_failure ? ""
                                              : " (start with --keep-on-failure to keep the ranks running)");
        return result;
    }
    return std::nullopt;
}

}  // namespace pdctl::engine
