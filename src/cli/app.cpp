#include "pdctl/cli/app.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <csignal>

#include "commands.hpp"
#include "log_file.hpp"
#include "pdctl/config/diagnostics.hpp"
#include "pdctl/report/output.hpp"

namespace pdctl::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0 success · 1 internal error · 2 usage or config error · 3 node unreachable · 4 stage failed\n"
    "  5 gate timeout · 6 deploy locked · 7 status: degraded · 8 status: stopped · 9 smoke failed\n"
    "  10 doctor: a node check failed · 11 stop failed: a unit still runs after SIGKILL\n"
    "  130 interrupted (SIGINT/SIGTERM)          details: docs/exit-codes.md";

void setup_logging(int verbosity) {
    auto logger = spdlog::stderr_color_mt("pdctl");
    logger->set_pattern("pdctl: %^%l%$: %v");
    const auto level = verbosity >= 2   ? spdlog::level::debug
                       : verbosity == 1 ? spdlog::level::info
                                        : spdlog::level::warn;
    // The level lives on the terminal's sink: --log-file adds a debug-level sink of its own.
    logger->sinks().front()->set_level(level);
    logger->set_level(level);
    spdlog::set_default_logger(logger);
}

// An error for the operator: on stderr, and in the log file when there is one.
void print_error(const std::string& text) {
    report::write_text(stderr, text);
    log_file::write(text);
}

int report_failure(const Failure& failure) {
    std::string text = fmt::format("pdctl: error: {}\n", failure.what());
    if (!failure.hint().empty()) text += fmt::format("  hint: {}\n", failure.hint());
    print_error(text);
    return to_int(failure.code());
}

}  // namespace

int run(int argc, char** argv) {
    // A closed stdout (`pdctl start | head`) must not kill pdctl half-way through a start with the lock
    // held: writes fail quietly instead (report/output.hpp), and sockets report EPIPE as errors.
    std::signal(SIGPIPE, SIG_IGN);
    CLI::App app{
        "pdctl — deploy prefill/decode-disaggregated LLM serving (Mooncake master → prefill → decode → "
        "router) over SSH, with health gates between stages.",
        "pdctl"};
    app.footer(kExitCodes);
    app.require_subcommand(1);
    GlobalOptions global;
    app.add_option(
        "-c,--config", global.config_path,
        "cluster file (default: $PDCTL_CONFIG, ./pdctl.yaml, else the embedded local simulated cluster)");
    app.add_flag("--json", global.json,
                 "machine-readable output: one JSON document, or JSON Lines for progress");
    app.add_flag("-v,--verbose", global.verbosity, "more diagnostics on stderr (-vv for debug)");
    std::string log_path;
    app.add_option("--log-file", log_path,
                   "also append this run's record to FILE: progress, debug diagnostics, errors, exit "
                   "code (secrets redacted)")
        ->envname("PDCTL_LOG_FILE")
        ->option_text("FILE");
    app.add_flag("--accept-new-host-keys", global.accept_new_host_keys,
                 "SSH: trust the key of a host missing from known_hosts and record it (a changed key is "
                 "always refused)");
    app.set_version_flag("--version", std::string("pdctl ") + PDCTL_VERSION);

    PlanOptions plan_options;
    auto* plan =
        app.add_subcommand("plan", "print the stages and every node's exact commands; touches no node");
    plan->add_option("verb", plan_options.verb, "start | stop | restart")->capture_default_str();

    StartOptions start_options;
    auto* start = app.add_subcommand("start", "start every stage in order, gated by health checks");
    start->add_flag("--keep-on-failure", start_options.keep_on_failure,
                    "leave what this run started when it fails (default: stop it, in reverse order)");
    auto* stop = app.add_subcommand("stop", "stop every stage in reverse order (idempotent)");
    auto* restart = app.add_subcommand("restart", "stop, then start");
    restart->add_flag("--keep-on-failure", start_options.keep_on_failure, "as for start");
    for (auto* verb : {start, restart})
        verb->add_flag("--skip-doctor", start_options.skip_doctor,
                       "emergencies only: start even though `pdctl doctor` finds errors in the config");
    DoctorOptions doctor_options;
    auto* doctor = app.add_subcommand("doctor",
                                      "check the config and plan against known PD pitfalls, then every node "
                                      "(GPUs, RDMA, NICs, images, ...)");
    doctor->add_flag("--static", doctor_options.static_only,
                     "only the static rules of the config and plan (touches no node; what start runs)");
    auto* status =
        app.add_subcommand("status", "every role and node: state, rank, health, uptime, config drift");

    LogsOptions logs_options;
    auto* logs =
        app.add_subcommand("logs", "a role's log lines: the last ones, --since a moment, or --follow");
    logs->add_option("role", logs_options.role, "role name")->required();
    logs->add_option("--node", logs_options.node, "only this node");
    logs->add_option("--rank", logs_options.rank, "only this rank");
    logs->add_option("--tail", logs_options.tail, "lines per unit (default 50; with --since, every line)");
    logs->add_option("--since", logs_options.since,
                     "only lines from this moment on: a duration (90s, 10m, 2h) or a time on the node "
                     "(2026-11-29 08:12[:03])");
    logs->add_flag("-f,--follow", logs_options.follow, "keep printing new lines until Ctrl-C");

    auto* push = app.add_subcommand(
        "push",
        "copy the config's `files:` to their nodes in parallel: sha256-verified, identical files skipped");

    PullOptions pull_options;
    auto* pull = app.add_subcommand(
        "pull",
        "pull the docker-runtime roles' images on their nodes in parallel, then require one image ID "
        "per image on every node");
    pull->add_option("--role", pull_options.roles, "only this role's image (repeatable)");
    pull->add_option("--node", pull_options.nodes, "only on this node (repeatable)");
    pull->add_option("--timeout", pull_options.timeout, "per pull: 90s, 25m, 2h")->capture_default_str();

    SmokeOptions smoke_options;
    auto* smoke = app.add_subcommand(
        "smoke", "/health_generate on every SGLang group's rank 0, then POST /generate through the router");
    smoke->add_option("--prompt", smoke_options.prompt, "prompt text")->capture_default_str();
    smoke->add_option("--max-tokens", smoke_options.max_new_tokens, "max_new_tokens")->capture_default_str();
    smoke->add_option("--timeout", smoke_options.timeout_seconds, "seconds to wait for the answer")
        ->capture_default_str();

    auto* lock = app.add_subcommand("lock", "the deploy lock on the coordinator node: status, release");
    lock->require_subcommand(1);
    auto* lock_status =
        lock->add_subcommand("status", "who holds the deploy lock, since when, for which verb");
    LockReleaseOptions lock_release_options;
    auto* lock_release =
        lock->add_subcommand("release", "remove the deploy lock: your own, or anyone's with --force");
    lock_release->add_flag("--force", lock_release_options.force,
                           "break a lock held by another operator, or a stale one");
    lock_status->fallthrough();
    lock_release->fallthrough();

    HistoryOptions history_options;
    auto* history = app.add_subcommand("history",
                                       "past runs of every verb that changed the cluster (start, stop, "
                                       "restart, push, pull), from the coordinator's journal");
    history->add_option("--limit", history_options.limit, "newest runs to show (0: all)")
        ->capture_default_str();

    for (auto* sub : app.get_subcommands({})) sub->fallthrough();

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);
        return code == 0 ? 0 : to_int(ExitCode::kUsage);
    }
    setup_logging(global.verbosity);
    if (!log_path.empty()) {
        try {
            log_file::open(log_path, argc, argv);
        } catch (const Failure& failure) {
            return report_failure(failure);
        }
    }

    // Every verb ends here, so the log file gets its exit code whatever happened.
    const auto run_selected_verb = [&]() -> int {
        try {
            ExitCode code = ExitCode::kOk;
            if (*plan) code = plan_command(global, plan_options);
            if (*start) code = start_command(global, start_options);
            if (*stop) code = stop_command(global);
            if (*restart) code = restart_command(global, start_options);
            if (*status) code = status_command(global);
            if (*logs) code = logs_command(global, logs_options);
            if (*smoke) code = smoke_command(global, smoke_options);
            if (*push) code = push_command(global);
            if (*pull) code = pull_command(global, pull_options);
            if (*doctor) code = doctor_command(global, doctor_options);
            if (*lock_status) code = lock_status_command(global);
            if (*lock_release) code = lock_release_command(global, lock_release_options);
            if (*history) code = history_command(global, history_options);
            return to_int(code);
        } catch (const config::ConfigError& error) {
            print_error(fmt::format("{}\n", error.what()));
            return to_int(ExitCode::kUsage);
        } catch (const Failure& failure) {
            return report_failure(failure);
        } catch (const std::exception& error) {
            print_error(fmt::format("pdctl: internal error: {}\n", error.what()));
            return to_int(ExitCode::kInternal);
        }
    };
    const int code = run_selected_verb();
    log_file::finish(code);
    return code;
}

}  // namespace pdctl::cli
