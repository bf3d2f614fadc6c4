// The app assembled: the global options, the verbs (each registers its own flags: verbs.hpp), the
// parse, the run of the chosen verb, and the errors it ends in, printed and turned into the exit code.
#include "pdctl/cli/app.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <system_error>

#include "completion_command.hpp"
#include "log_file.hpp"
#include "pdctl/config/diagnostics.hpp"
#include "pdctl/report/output.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0 success · 1 internal error (diff: differs) · 2 usage or config error · 3 node unreachable · 4 stage "
    "failed\n"
    "  5 gate timeout · 6 deploy locked\n"
    "  7 degraded: status (not all running and healthy), start/restart --role (a dependency is not\n"
    "    ready), restart --rolling and heal (the router refused its list), heal --dry-run (it would act),\n"
    "    drill (the deployment was not all ready before the fault)\n"
    "  8 status: stopped · 9 smoke failed\n"
    "  10 doctor: a node check failed · 11 stop failed: a unit still runs after SIGKILL\n"
    "  12 stop: the units stopped but GPU memory is still in use · 13 exec/stack: failed on a node\n"
    "  14 stop: the coordinator was unreachable; every reachable unit stopped without the lock\n"
    "  15 bench: requests failed, or a soak saw a KV failure counter rise\n"
    "  16 bench --vs/--baseline: a metric got worse than --max-regress allows\n"
    "  17 heal: a group failed again after --max-tries heals within --window; left alone\n"
    "  18 rollout: a group failed its gate; every group already changed was rolled back\n"
    "  130 interrupted (SIGINT/SIGTERM) · 141 stdout closed by its reader     details: docs/exit-codes.md";

// The verbs, in the order `pdctl --help` lists them.
using AddVerb = void (*)(CLI::App&, Verbs&);
constexpr AddVerb kVerbs[] = {add_plan_verb,    add_start_verb,     add_stop_verb,  add_restart_verb,
                              add_rollout_verb, add_rollback_verb,  add_heal_verb,  add_drill_verb,
                              add_doctor_verb,  add_status_verb,    add_logs_verb,  add_push_verb,
                              add_pull_verb,    add_cache_verb,     add_smoke_verb, add_bench_verb,
                              add_exec_verb,    add_stack_verb,     add_lock_verb,  add_ssh_verb,
                              add_history_verb, add_timeline_verb,  add_diff_verb,  add_config_verb,
                              add_export_verb,  add_completion_verb};

void add_global_options(CLI::App& app, GlobalOptions& global, std::string& log_path) {
    app.add_option(
           "-c,--config", global.config_path,
           "cluster file (default: $PDCTL_CONFIG, ./pdctl.yaml, else the embedded local simulated cluster)")
        ->type_name("FILE");
    app.add_flag("--json", global.json,
                 "machine-readable output: one JSON document, or JSON Lines for progress");
    app.add_flag("-v,--verbose", global.verbosity, "more diagnostics on stderr (-vv for debug)");
    app.add_option("--log-file", log_path,
                   "also append this run's record to FILE: progress, debug diagnostics, errors, exit "
                   "code (secrets redacted)")
        ->envname("PDCTL_LOG_FILE")
        ->type_name("FILE");
    app.add_flag("--accept-new-host-keys", global.accept_new_host_keys,
                 "SSH: trust the key of a host missing from known_hosts and record it (a changed key is "
                 "always refused)");
    app.set_version_flag("--version", std::string("pdctl ") + PDCTL_VERSION);
}

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

// Every error a verb ends in becomes its message on stderr and its exit code.
int run_chosen_verb(const Verbs& verbs, const GlobalOptions& global) {
    try {
        return to_int(verbs.run_chosen(global));
    } catch (const config::ConfigError& error) {
        print_error(fmt::format("{}\n", error.what()));
        return to_int(ExitCode::kUsage);
    } catch (const Failure& failure) {
        return report_failure(failure);
    } catch (const std::system_error& error) {
        // The reader went away (`| head`): its choice, not an error; nothing is printed, as cat does.
        if (error.code() == std::errc::broken_pipe) return to_int(ExitCode::kOutputClosed);
        print_error(fmt::format("pdctl: internal error: {}\n", error.what()));
        return to_int(ExitCode::kInternal);
    } catch (const std::exception& error) {
        print_error(fmt::format("pdctl: internal error: {}\n", error.what()));
        return to_int(ExitCode::kInternal);
    }
}

}  // namespace

int run(int argc, char** argv, const Outside& outside) {
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
    global.clock = &outside.clock;
    global.prober = &outside.prober;
    std::string log_path;
    add_global_options(app, global, log_path);
    Verbs verbs;
    for (const auto add_verb : kVerbs) add_verb(app, verbs);
    // Global options may follow the verb: `pdctl status --json`.
    for (auto* sub : app.get_subcommands({})) sub->fallthrough();
    if (is_completion_request(argc, argv)) return run_completion_request(app, argc, argv);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);
        return code == 0 ? 0 : to_int(ExitCode::kUsage);
    }
    global.config_given = app.get_option("--config")->count() > 0;
    setup_logging(global.verbosity);
    if (!log_path.empty()) {
        try {
            log_file::open(log_path, argc, argv);
        } catch (const Failure& failure) {
            return report_failure(failure);
        }
    }
    // Every verb ends here, so the log file gets its exit code whatever happened.
    int code = run_chosen_verb(verbs, global);
    // Output the reader never got (it closed the pipe, writes failed quietly): a success would hide
    // that, so it ends as a write to a closed pipe does. Any other code says more and is kept.
    if (code == 0 && (report::reader_closed_output() ||
                      ((std::fflush(stdout) != 0 || std::ferror(stdout)) && errno == EPIPE)))
        code = to_int(ExitCode::kOutputClosed);
    log_file::finish(code);
    return code;
}

}  // namespace pdctl::cli
