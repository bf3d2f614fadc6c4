#include "pdctl/ops/rollout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/config_history.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/ops/intent_store.hpp"
#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/pull/pull_plan.hpp"
#include "pdctl/pull/puller.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"
#include "rollout_steps.hpp"

namespace pdctl::ops {
namespace {

// The load the baseline and the canary are measured under: unique prompts (the prefix cache serves
// none of them), each window its own seed so the canary's prompts are not the baseline's.
BenchSpec rollout_bench(const RolloutRequest& request, std::uint64_t seed) {
    BenchSpec spec;
    spec.scenario = "rollout";
    spec.rows = {unique_row("rollout", 512, 64)};
    spec.concurrency = {request.concurrency};
    spec.duration = request.canary_window;
    spec.warmup = 2;
    spec.seed = seed;
    spec.seed_given = true;
    spec.soak = true;  // failed requests and the KV failure counters judge it too
    spec.allow_unverified = request.allow_unverified;
    return spec;
}

// Reports each image as it is pulled; the puller calls one at a time.
class PullNotes : public pull::PullObserver {
  public:
    explicit PullNotes(engine::Reporter& journal) : journal_(journal) {}
    void image_done(const std::string& node, const pull::ImageOutcome& image, std::size_t,
                    std::size_t) override {
        journal_.note(fmt::format("pull {} {}: {}{}", node, image.image.image, pull::to_string(image.status),
                                  image.error.empty() ? "" : " (" + image.error + ")"));
    }
    void node_done(const pull::NodeOutcome&) override {}
    void still_pulling(const std::string& node, const pull::ImageRef& image,
                       pull::Duration elapsed) override {
        journal_.note(fmt::format("pull {} {}: still pulling after {}", node, image.image,
                                  util::format_elapsed(elapsed)));
    }

  private:
    engine::Reporter& journal_;
};

// The new images, on every node of a group whose image changes, pulled and their IDs checked alike
// before anything is touched. A message when they are not; "" when they are (or nothing changes image).
std::string pull_new_images(const Deployment& deployment, const RolloutPreview& preview,
                            engine::Reporter& journal) {
    pull::PullFilter filter;
    for (const auto& group : preview.groups) {
        const auto step = std::find_if(
            preview.plan.steps.begin(), preview.plan.steps.end(),
            [&](const plan::RolloutStep& candidate) { return candidate.group == group.diff.stage; });
        if (step == preview.plan.steps.end() || step->action == plan::RolloutAction::kRemove) continue;
        // A group that starts on nodes that did not run it needs its image there, whichever it is.
        const bool new_here = step->action != plan::RolloutAction::kReplace;
        if (!new_here && group.diff.image_before == group.diff.image_after) continue;
        const auto* stage = deployment.plan.find_stage(group.diff.stage);
        if (!stage) continue;
        filter.roles.push_back(stage->role);  // the group's own role: the config names each group
        for (const auto& unit : stage->units) filter.nodes.push_back(unit.node);
    }
    if (filter.nodes.empty()) return "";
    const auto plan = pull::plan_pull(deployment.cluster, filter);
    if (plan.empty()) return "";
    journal.note(fmt::format("pulling the new images on {} nodes before anything is touched", plan.size()));
    PullNotes notes(journal);
    pull::PullOptions options;
    options.interrupted = [] { return engine::interrupted(); };
    const auto result = pull::run_pull(*deployment.executor, plan, notes, options);
    if (result.all_pulled()) return "";
    std::vector<std::string> problems;
    for (const auto& node : result.nodes) {
        if (node.unreachable) problems.push_back(node.node + " unreachable");
        for (const auto& image : node.images)
            if (!image.ok())
                problems.push_back(fmt::format("{} {}: {}", node.node, image.image.image, image.error));
    }
    for (const auto& mismatch : result.mismatches)
        problems.push_back(fmt::format("{} {} is {} where most nodes have {}", mismatch.node,
                                       mismatch.image.image, mismatch.id, mismatch.majority));
    return "the new images are not on every node (" + util::join(problems, "; ") + "); nothing was touched";
}

std::vector<RecordedLevel> baseline_levels(const RolloutRequest& request, const BenchReport& measured) {
    if (request.baseline_file.empty()) return recorded_levels(bench_record(measured), "the baseline");
    std::ifstream in(request.baseline_file);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw Failure(ExitCode::kUsage, "cannot read --baseline " + request.baseline_file);
    const auto record = nlohmann::json::parse(text.str(), nullptr, false);
    if (record.is_discarded())
        throw Failure(ExitCode::kUsage, "--baseline " + request.baseline_file + ": not JSON");
    return recorded_levels(record, request.baseline_file);
}

CanaryVerdict judge(const std::string& group, const std::vector<std::string>& replaced,
                    const std::vector<RecordedLevel>& baseline, BenchReport measured,
                    const std::vector<LatencyReading>& before, const std::vector<LatencyReading>& after,
                    const RolloutRequest& request) {
    CanaryVerdict verdict;
    verdict.group = group;
    for (const auto& problem : measured.problems) verdict.problems.push_back(problem);
    verdict.comparison = compare_bench(baseline, recorded_levels(bench_record(measured), "the canary"),
                                       request.max_regress, "the baseline");
    // Latency is judged against the old groups beside the canary, over the same load at the same time
    // (ops/canary.hpp). The baseline minutes before differs by more than the change: between two windows
    // with nothing changed but the canary's restart, the router's TTFT of a few milliseconds moved by
    // 24 % (p=0.0003) and its E2E by 13 % (p=1e-9), on a simulated cluster sharing its cores with other
    // tests; the old groups beside the canary meanwhile ran 1 % apart from it. So the router's comparison
    // gates only when the canary's own cannot be made (metrics off, no old group of its kind left), and
    // then on what a whole request feels, its end-to-end latency and output rate; else it is reported.
    verdict.latency =
        compare_canary(before, after, group, replaced, request.max_regress, verdict.latency_not_judged);
    for (auto& change : verdict.comparison->changes)
        if (verdict.latency || (change.metric != "E2E p50" && change.metric != "output tok/s"))
            change.regressed = false;
    for (const auto& change : verdict.comparison->changes)
        if (change.regressed)
            verdict.problems.push_back(fmt::format(
                "{} {}: {:.4g} against {:.4g} before, {:+.0f}% worse (more than {:.0f}% allowed, p={:.3g})",
                change.level, change.metric, change.now, change.before, change.worse_by * 100,
                request.max_regress * 100, change.p_value.value_or(0)));
    if (verdict.latency && verdict.latency->regressed)
        verdict.problems.push_back(
            fmt::format("{} {} {:.2f} ms against {:.2f} ms on {} (the old config, same load, "
                        "same time): {:+.0f}% (more than {:.0f}% allowed)",
                        group, verdict.latency->metric, verdict.latency->canary_ms,
                        verdict.latency->others_ms, util::join(verdict.latency->others, ", "),
                        verdict.latency->worse_by * 100, request.max_regress * 100));
    verdict.measured = std::move(measured);
    return verdict;
}

// Every part already taken undone, newest first. The exit code of the first undoing that fails, or
// kRolledBack.
ExitCode undo_all(const Deployment& wanted, const Deployment& previous, std::vector<Taken> taken,
                  const RolloutRequest& request, RolloutResult& result, engine::Reporter& journal) {
    for (auto part = taken.rbegin(); part != taken.rend(); ++part) {
        journal.note(fmt::format("rollback: {} {} undone, to the previous config (run {})",
                                 plan::to_string(part->action), part->group, result.preview.previous_run));
        const auto code = undo(wanted, previous, *part, request, journal);
        if (code != ExitCode::kOk) {
            journal.note(
                fmt::format("rollback of {} failed: `pdctl rollback` tries again; `pdctl diff` shows "
                            "what runs",
                            part->group));
            return code;
        }
        result.rolled_back_groups.push_back(part->group);
        const auto replaced = std::find(result.replaced.begin(), result.replaced.end(), part->group);
        if (replaced != result.replaced.end()) result.replaced.erase(replaced);
    }
    return ExitCode::kRolledBack;
}

ExitCode roll_back(const Deployment& wanted, const Deployment& previous, std::vector<Taken> taken,
                   const RolloutRequest& request, RolloutResult& result, engine::Reporter& journal) {
    result.rolled_back = true;
    const auto began = wanted.clock->now();
    const auto code = undo_all(wanted, previous, std::move(taken), request, result, journal);
    result.rollback_seconds = util::to_seconds(wanted.clock->now() - began);
    return code;
}

}  // namespace

RolloutPreview preview_rollout(const Deployment& deployment, const RolloutRequest& request) {
    RolloutPreview preview;
    auto diff = diff_deployment(deployment);
    if (!diff.unreachable.empty()) {
        const auto& [node, why] = *diff.unreachable.begin();
        throw Failure(
            ExitCode::kUnreachable,
            fmt::format("{}: {}: a rollout must see every node before it touches one; nothing was touched",
                        node, why));
    }
    std::vector<plan::GroupDiff> changes;
    std::set<std::string> previous;
    for (auto& group : diff.groups) {
        // A tag that names another image now: replacing the group starts what the tag names.
        if (group.diff.change == plan::GroupChange::kSame && !group.image_moved.empty())
            group.diff.change = plan::GroupChange::kChanged;
        if (group.diff.change != plan::GroupChange::kSame && group.unexplained)
            throw Failure(
                ExitCode::kUsage,
                fmt::format("{} runs from a config pdctl did not keep: a rollout could not bring it back; "
                            "nothing was touched",
                            group.diff.stage),
                "`pdctl start` replaces it (and keeps the config it starts from)");
        if (group.diff.change != plan::GroupChange::kSame && group.diff.change != plan::GroupChange::kAdded &&
            !group.running_config_id.empty()) {
            previous.insert(group.running_config_id);
            preview.previous_run = group.running_from;
        }
        changes.push_back(group.diff);
    }
    preview.plan = plan::rollout_plan(deployment.plan, changes, {request.canary, request.allow_downtime});
    if (previous.size() > 1)
        throw Failure(
            ExitCode::kUsage,
            fmt::format("the changed groups run from {} configs: a rollback would have no one config to go "
                        "back to; nothing was touched",
                        previous.size()),
            "`pdctl diff` shows which group runs from which run; roll back or finish the last change first");
    if (!previous.empty()) preview.previous_config = *previous.begin();
    preview.groups = std::move(diff.groups);
    return preview;
}

RolloutResult run_rollout(const Deployment& deployment, const RolloutRequest& request,
                          engine::Reporter& screen) {
    RolloutResult result;
    auto& clock = *deployment.clock;
    engine::install_interrupt_handlers();  // Ctrl-C ends a step the engine's way, then the run's record
    result.code = run_journaled_verb(deployment, screen, request.verb, [&](JournalingReporter& journal) {
        if (!request.resuming) {
            const auto intent = read_intent(deployment);
            if (intent.intent.rollout)
                throw Failure(
                    ExitCode::kUsage,
                    fmt::format("a rollout is paused after its canary {} (by {} at {}); nothing was touched",
                                intent.intent.rollout->canary, intent.intent.rollout->act.who,
                                intent.intent.rollout->act.at),
                    "`pdctl rollout resume` replaces the rest, `pdctl rollout abort` puts the canary back");
        }
        result.preview = preview_rollout(deployment, request);
        const auto& rollout = result.preview.plan;
        std::vector<std::string> groups;
        for (const auto& step : rollout.steps) groups.push_back(step.group);
        journal.journal_event("rollout_plan", {{"groups", groups},
                                               {"router", rollout.router},
                                               {"previous_config", result.preview.previous_config},
                                               {"downtime", rollout.downtime}});
        // The way back is read before anything is touched. Groups that only join have none to read:
        // their way back is to leave again.
        std::optional<Deployment> kept_previous;
        if (!result.preview.previous_config.empty()) {
            std::string error;
            const auto bundle = fetch_kept_config(deployment, result.preview.previous_config, error);
            if (!bundle)
                throw Failure(ExitCode::kUsage,
                              fmt::format("the previous config ({}) cannot be read: {}; without a way back "
                                          "nothing was touched",
                                          result.preview.previous_run, error));
            kept_previous = open_deployment(
                load_kept_config(*bundle), {false, Purpose::kDrive, request.verb, &clock, deployment.prober});
        }
        const auto& previous = kept_previous ? *kept_previous : deployment;
        std::vector<Taken> taken;

        if (const auto missing = pull_new_images(deployment, result.preview, journal); !missing.empty()) {
            result.message = missing;
            return ExitCode::kStageFailed;
        }

        if (rollout.downtime) {
            journal.note("downtime: " + rollout.downtime_why + "; " + util::join(groups, ", ") +
                         (rollout.topology ? ": a start with the config" : " restart in place"));
            const auto began = clock.now();
            EngineRequest engine;
            // Groups added, removed or moved: the whole start stops what the config dropped, starts what
            // it added and relaunches the router with its new list.
            engine.verb = rollout.topology ? EngineVerb::kStart : EngineVerb::kRestart;
            if (!rollout.topology) engine.scope.groups = groups;
            const auto code = run_engine_locked(deployment, engine, journal);
            result.downtime = std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - began);
            if (code == ExitCode::kOk) result.replaced = groups;
            result.message =
                fmt::format("{} replaced in place; the router's clients saw {} of downtime at most",
                            util::join(groups, ", "), util::format_elapsed(*result.downtime));
            return code;
        }

        // A change that only removes groups has no canary: its drains judge it, without a baseline.
        const bool judged = std::any_of(rollout.steps.begin(), rollout.steps.end(),
                                        [](const plan::RolloutStep& step) { return step.canary; });
        if (!request.resuming && judged)
            journal.note(fmt::format("baseline: {} of load through {} at concurrency {}",
                                     util::format_elapsed(request.canary_window), rollout.router,
                                     request.concurrency));
        BenchReport baseline_run;
        if (request.baseline_file.empty() && !request.resuming && judged) {
            baseline_run = run_bench(deployment, rollout_bench(request, 1), {});
            if (!baseline_run.passed()) {
                result.message = "the running deployment fails its own baseline (" +
                                 util::join(baseline_run.problems, "; ") + "); nothing was touched";
                return ExitCode::kBenchFailed;
            }
        }
        const auto baseline = request.resuming || !judged ? std::vector<RecordedLevel>{}
                                                          : baseline_levels(request, baseline_run);

        for (std::size_t i = 0; i < rollout.steps.size(); ++i) {
            const auto& step = rollout.steps[i];
            journal.note(fmt::format("step {}/{}: {}{}: {}", i + 1, rollout.steps.size(), step.group,
                                     step.canary ? " (canary)" : "", step.what));
            const auto before = step.canary ? read_latencies(deployment) : std::vector<LatencyReading>{};
            result.replaced.push_back(step.group);
            const auto step_began = clock.now();
            const auto code = take_step(deployment, previous, step, request, taken, journal);
            result.steps.push_back({step, util::to_seconds(clock.now() - step_began), code});
            if (code == ExitCode::kInterrupted) return code;
            if (code != ExitCode::kOk) {
                result.message = fmt::format("{} {} failed (exit {})", plan::to_string(step.action),
                                             step.group, static_cast<int>(code));
                return roll_back(deployment, previous, taken, request, result, journal);
            }
            if (!step.canary || request.resuming) continue;
            journal.note(
                fmt::format("canary {}: {} of load, judged against the baseline and the groups beside it",
                            step.group, util::format_elapsed(request.canary_window)));
            auto measured = run_bench(deployment, rollout_bench(request, 2), {});
            const auto after = read_latencies(deployment);
            result.canary =
                judge(step.group, result.replaced, baseline, std::move(measured), before, after, request);
            result.canary->baseline = baseline_run;
            journal.journal_event("canary", {{"group", step.group},
                                             {"passed", result.canary->passed()},
                                             {"problems", result.canary->problems}});
            if (!result.canary->passed()) {
                result.message =
                    "canary " + step.group + " failed: " + util::join(result.canary->problems, "; ");
                journal.note(result.message);
                return roll_back(deployment, previous, taken, request, result, journal);
            }
            journal.note("canary " + step.group + " passed");
            if (request.pause_after_canary) {
                const auto config_id = config_id_of(deployment.cluster);
                const auto unrecorded =
                    change_intent(deployment, journal, "rollout paused", {step.group},
                                  [&](state::intent::Intent& intent, const state::intent::Act& act) {
                                      intent.rollout = state::intent::PausedRollout{
                                          act, config_id, result.preview.previous_config,
                                          result.preview.previous_run, step.group};
                                      return true;
                                  });
                if (!unrecorded.empty()) {
                    result.message =
                        unrecorded + ": the pause could not be recorded, so the canary goes back";
                    return roll_back(deployment, previous, taken, request, result, journal);
                }
                result.paused = true;
                result.message = fmt::format(
                    "paused after canary {}: `pdctl rollout resume` replaces the rest, `pdctl rollout abort` "
                    "puts "
                    "the canary back",
                    step.group);
                return ExitCode::kOk;
            }
        }
        if (request.resuming) {
            const auto unrecorded =
                change_intent(deployment, journal, "rollout resumed", groups,
                              [](state::intent::Intent& intent, const state::intent::Act&) {
                                  const bool paused = intent.rollout.has_value();
                                  intent.rollout.reset();
                                  return paused;
                              });
            if (!unrecorded.empty()) journal.note(unrecorded + ": the pause still reads as recorded");
        }
        result.message =
            fmt::format("{} {} with the config, one at a time through {}", util::join(result.replaced, ", "),
                        rollout.topology ? "changed" : "replaced", rollout.router);
        return ExitCode::kOk;
    });
    if (result.message.empty()) result.message = describe(result.code);
    return result;
}

}  // namespace pdctl::ops
