// pdctl rollout: the deployment taken to the config one group at a time, judged at a canary, rolled back
// when it fails; pdctl rollback [RUN]: the same, to a kept config (ops/rollout.hpp, docs/rollout.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "duration_flag.hpp"
#include "engine_flags.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/rollout.hpp"
#include "pdctl/report/rollout_view.hpp"
#include "pdctl/util/durations.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct RolloutFlags {
    bool dry_run = false;
    bool pause_after_canary = false;
    std::string canary;
    bool allow_downtime = false;
    bool allow_unverified = false;
    std::string max_regress = "10%";
    std::string canary_window = "20s";
    int concurrency = 8;
    std::string baseline;
    std::string drain_grace = "5s";
    std::string run;  // rollback: the run whose config to go back to
    std::string junit;
};

ops::RolloutRequest request_of(const RolloutFlags& flags, const std::string& verb) {
    ops::RolloutRequest request;
    request.verb = verb;
    request.canary = flags.canary;
    request.pause_after_canary = flags.pause_after_canary;
    request.allow_downtime = flags.allow_downtime;
    request.allow_unverified = flags.allow_unverified;
    request.max_regress = ops::parse_regress_fraction(flags.max_regress);
    request.canary_window = std::chrono::duration_cast<std::chrono::milliseconds>(
        parse_duration_flag("--canary-window", flags.canary_window));
    if (flags.concurrency < 1) throw Failure(ExitCode::kUsage, "--concurrency must be at least 1");
    request.concurrency = flags.concurrency;
    request.baseline_file = flags.baseline;
    request.drain_grace = std::chrono::duration_cast<std::chrono::milliseconds>(
        parse_duration_flag("--drain-grace", flags.drain_grace, ZeroDuration::kAllowed));
    return request;
}

ExitCode roll(const GlobalOptions& global, const ops::Deployment& target, const util::Redactor& redactor,
              const ops::RolloutRequest& request, bool dry_run, const std::string& junit) {
    if (dry_run) {
        const auto preview = ops::preview_rollout(target, request);
        print_result(
            global, redactor, [&] { return report::rollout_plan_to_json(preview); },
            [&] { return report::render_rollout_plan_text(preview, request); });
        return ExitCode::kOk;
    }
    if (!junit.empty()) check_junit_path(junit);
    auto reporter = make_reporter(global, redactor);
    const auto began = std::chrono::steady_clock::now();
    ops::RolloutResult result;
    try {
        result = ops::run_rollout(target, request, *reporter);
    } catch (const Failure& failure) {
        // Refused before anything was touched: the report says so too, never an empty success.
        if (!junit.empty()) {
            result.code = failure.code();
            result.message = failure.what();
            write_junit_file(junit, {report::rollout_suite(result, request.verb, util::seconds_since(began))},
                             redactor);
        }
        throw;
    }
    if (!junit.empty())
        write_junit_file(junit, {report::rollout_suite(result, request.verb, util::seconds_since(began))},
                         redactor);
    if (global.json) {
        // After the run's JSON Lines events, its outcome is one more line: {"event": "rollout_result", ...}.
        auto document = report::rollout_to_json(result);
        document["event"] = "rollout_result";
        fmt::print("{}\n", redactor.redact(document.dump()));
    } else {
        fmt::print("{}", redactor.redact(report::render_rollout_text(result)));
    }
    return result.code;
}

ExitCode rollout_command(const GlobalOptions& global, const RolloutFlags& flags) {
    const auto request = request_of(flags, "rollout");
    auto context = load_context(global);
    return roll(global, context, context.redactor, request, flags.dry_run, flags.junit);
}

// `rollout resume`: the rest of the paused rollout, with the same config file; `rollout abort`: the
// canary back to the config it replaced.
ExitCode paused_command(const GlobalOptions& global, const RolloutFlags& flags, bool abort) {
    auto request = request_of(flags, abort ? "rollback" : "rollout");
    request.resuming = true;
    auto context = load_context(global);
    auto target = ops::paused_rollout(context, abort);
    if (!abort) return roll(global, context, context.redactor, request, flags.dry_run, flags.junit);
    util::Redactor redactor = context.redactor;
    redactor.add_secrets_of(target.previous->redactor);
    return roll(global, *target.previous, redactor, request, flags.dry_run, flags.junit);
}

ExitCode rollback_command(const GlobalOptions& global, const RolloutFlags& flags) {
    const auto request = request_of(flags, "rollback");
    auto context = load_context(global);
    auto target = ops::rollback_target(context, flags.run);
    util::Redactor redactor = context.redactor;
    redactor.add_secrets_of(target.deployment.redactor);
    return roll(global, target.deployment, redactor, request, flags.dry_run, flags.junit);
}

void add_rollout_flags(CLI::App& command, RolloutFlags& flags) {
    command.add_flag("--dry-run", flags.dry_run,
                     "print the plan (groups, order, canary, its gate, the way back) and touch nothing");
    command.add_option("--canary", flags.canary,
                       "the group replaced and judged first (default: a decode group)");
    command.add_flag(
        "--pause-after-canary", flags.pause_after_canary,
        "once the canary passed, stop there: `rollout resume` replaces the rest, `rollout abort` "
        "puts the canary back");
    command.add_flag(
        "--allow-downtime", flags.allow_downtime,
        "a change that cannot roll with the router serving (MiniLB, a KV layout change): replace the "
        "groups in place, the downtime measured");
    command.add_flag("--allow-unverified", flags.allow_unverified,
                     "groups whose KV failure counters cannot be read (no --enable-metrics): the baseline "
                     "and the canary's soak judged by their requests alone");
    command
        .add_option("--max-regress", flags.max_regress,
                    "how much worse the canary may be than the baseline and than the groups beside it")
        ->capture_default_str();
    add_duration_option(command, "--canary-window", flags.canary_window,
                        "the load the baseline and the canary are each measured under (default 20s)");
    command.add_option("--concurrency", flags.concurrency, "requests in flight during those windows")
        ->capture_default_str();
    command.add_option("--baseline", flags.baseline, "a bench record (`pdctl --json bench`) as the baseline");
    add_duration_option(command, "--drain-grace", flags.drain_grace,
                        "how long a group keeps running after the router dropped it (default 5s)");
    add_junit_flag(command, flags.junit,
                   "one test case per step taken, the canary's gate, and the rollback when there was one");
}

}  // namespace

void add_rollout_verb(CLI::App& app, Verbs& verbs) {
    auto flags = std::make_shared<RolloutFlags>();
    auto* command = app.add_subcommand(
        "rollout",
        "take the deployment to the config one group at a time through the router: a canary judged by the "
        "bench first, every changed group rolled back when it fails (exit 18)");
    add_rollout_flags(*command, *flags);
    auto resume_flags = std::make_shared<RolloutFlags>();
    auto* resume = command->add_subcommand("resume", "replace the rest of a rollout paused after its canary");
    add_duration_option(*resume, "--drain-grace", resume_flags->drain_grace,
                        "how long a group keeps running after the router dropped it (default 5s)");
    auto abort_flags = std::make_shared<RolloutFlags>();
    auto* abort =
        command->add_subcommand("abort", "put the canary of a paused rollout back to the config it replaced");
    add_duration_option(*abort, "--drain-grace", abort_flags->drain_grace,
                        "how long a group keeps running after the router dropped it (default 5s)");
    resume->fallthrough();
    abort->fallthrough();
    // Before `rollout` itself: the first parsed entry runs, and `rollout resume` parses `rollout` too.
    verbs.add(resume, [resume_flags](const GlobalOptions& global) {
        return paused_command(global, *resume_flags, false);
    });
    verbs.add(abort, [abort_flags](const GlobalOptions& global) {
        return paused_command(global, *abort_flags, true);
    });
    verbs.add(command, [flags](const GlobalOptions& global) { return rollout_command(global, *flags); });
}

void add_rollback_verb(CLI::App& app, Verbs& verbs) {
    auto flags = std::make_shared<RolloutFlags>();
    auto* command = app.add_subcommand(
        "rollback",
        "bring the deployment back to a past run's kept config, the way rollout goes (default: the "
        "newest run that ended well with another config than the one that runs)");
    command->add_option("run", flags->run, "a run id or a unique prefix of one (`pdctl history`)");
    add_rollout_flags(*command, *flags);
    verbs.add(command, [flags](const GlobalOptions& global) { return rollback_command(global, *flags); });
}

}  // namespace pdctl::cli
