// pdctl heal: one pass of putting the cluster back to its config (docs/heal.md); --watch loops;
// heal pause | resume: a maintenance window every pass honours.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "duration_flag.hpp"
#include "pdctl/ops/heal.hpp"
#include "pdctl/report/heal_view.hpp"
#include "pdctl/util/wall_clock.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct HealFlags {
    bool dry_run = false;
    std::string watch;  // an interval; "" = one pass
    int max_tries = 3;
    std::string window = "10m";
};

void print(const GlobalOptions& global, const Context& context, const ops::HealReport& report) {
    const auto text =
        global.json ? report::heal_to_json(report).dump() + "\n" : report::render_heal_text(report);
    fmt::print("{}", context.redactor.redact(text));
    std::fflush(stdout);
}

ExitCode heal_command(const GlobalOptions& global, const HealFlags& flags) {
    ops::HealRequest request;
    request.dry_run = flags.dry_run;
    if (flags.max_tries < 1) throw Failure(ExitCode::kUsage, "--max-tries must be at least 1");
    request.policy.max_tries = flags.max_tries;
    request.policy.window = parse_duration_flag("--window", flags.window);
    if (!flags.watch.empty()) request.watch = parse_duration_flag("--watch", flags.watch);
    // A timer runs it: a missing cluster file must stop it, not start the embedded simulator.
    const auto context = load_context(global, Purpose::kDrive, "heal", ops::EmbeddedFallback::kRefused);
    auto reporter = make_reporter(global, context.redactor);
    ops::HealWatchHooks hooks;
    hooks.pass = [&](const ops::HealReport& report) { print(global, context, report); };
    hooks.failed = [&](const Failure& failure) {
        fmt::print(stderr, "pdctl: heal: {}\n", context.redactor.redact(failure.what()));
    };
    return ops::run_heal(context, request, *reporter, hooks);
}

struct PauseFlags {
    std::string hold = "1h";
    std::string reason;
};

ExitCode pause_command(const GlobalOptions& global, const PauseFlags& flags) {
    const auto hold = parse_duration_flag("--for", flags.hold);
    if (flags.reason.empty()) throw Failure(ExitCode::kUsage, "--reason must say why heal is paused");
    const auto context = load_context(global);
    auto reporter = make_reporter(global, context.redactor);
    const auto until =
        util::epoch_ms_now() + std::chrono::duration_cast<std::chrono::milliseconds>(hold).count();
    ops::pause_heal(context, until, flags.reason, *reporter);
    const auto text =
        global.json
            ? nlohmann::json{{"paused", true}, {"until", util::utc_text(until)}, {"reason", flags.reason}}
                      .dump() +
                  "\n"
            : fmt::format(
                  "heal paused until {} ({}): every heal pass says so and touches nothing; "
                  "`pdctl heal resume` ends it sooner\n",
                  util::utc_text(until), flags.reason);
    fmt::print("{}", context.redactor.redact(text));
    return ExitCode::kOk;
}

ExitCode resume_command(const GlobalOptions& global) {
    const auto context = load_context(global);
    auto reporter = make_reporter(global, context.redactor);
    const bool ended = ops::resume_heal(context, *reporter);
    const auto text = global.json ? nlohmann::json{{"resumed", ended}}.dump() + "\n"
                      : ended     ? std::string("heal resumed: the next pass acts again\n")
                                  : std::string("heal was not paused; nothing changed\n");
    fmt::print("{}", text);
    return ExitCode::kOk;
}

}  // namespace

void add_heal_verb(CLI::App& app, Verbs& verbs) {
    auto flags = std::make_shared<HealFlags>();
    auto* command = app.add_subcommand(
        "heal",
        "restart what died or stalled (a prefill with its decodes, through the router where it can), put the "
        "router's worker list right; one pass, for a timer");
    command->add_flag("--dry-run", flags->dry_run,
                      "say what it would do; touch nothing (exit 7 if it would act)");
    command->add_option("--watch", flags->watch, "a pass every DURATION, in the foreground, until Ctrl-C")
        ->type_name(kDurationMetavar);
    command
        ->add_option("--max-tries", flags->max_tries,
                     "heals of one group within --window before it is left alone (exit 17)")
        ->default_str("3");
    command->add_option("--window", flags->window, "how far back heals of a group count (default 10m)")
        ->type_name("DURATION");

    // A maintenance window: every pass reports it and touches nothing until it ends.
    auto pause_flags = std::make_shared<PauseFlags>();
    auto* pause = command->add_subcommand(
        "pause", "hold every heal pass (a maintenance window) until --for has passed or `heal resume`");
    pause->add_option("--for", pause_flags->hold, "how long the pause lasts (default 1h)")
        ->type_name(kDurationMetavar);
    pause->add_option("--reason", pause_flags->reason, "why, for the operators who meet the pause")
        ->required();
    auto* resume = command->add_subcommand("resume", "end a heal pause now");
    pause->fallthrough();
    resume->fallthrough();
    // Before `heal` itself: the first parsed entry runs, and `heal pause` parses `heal` too.
    verbs.add(pause,
              [pause_flags](const GlobalOptions& global) { return pause_command(global, *pause_flags); });
    verbs.add(resume, resume_command);
    verbs.add(command, [flags](const GlobalOptions& global) { return heal_command(global, *flags); });
}

}  // namespace pdctl::cli
