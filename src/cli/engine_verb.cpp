#include "engine_verb.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <optional>

#include "doctor_gate.hpp"
#include "pdctl/config/duration.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/report/junit_reporter.hpp"
#include "pdctl/timeline/start_history.hpp"

namespace pdctl::cli {
namespace {

engine::Duration parse_wait(const std::string& flag, const std::string& text) {
    const auto timeout = config::parse_duration(text);
    if (!timeout || timeout->count() < 0)
        throw Failure(ExitCode::kUsage, flag + ": cannot read '" + text + "'",
                      std::string("a duration (0 = do not wait): ") + config::kDurationForms);
    return *timeout;
}

}  // namespace

void add_deadline_flags(CLI::App& command, std::string& policy, std::string& floor) {
    command
        .add_option(
            "--deadline-policy", policy,
            "learned: with 3 or more past successful starts of a stage's config, its gate deadline is "
            "clamp(p95 x 1.5, --deadline-floor, configured); fixed: the configured deadlines")
        ->check(CLI::IsMember({"learned", "fixed"}))
        ->capture_default_str();
    command.add_option("--deadline-floor", floor, "the shortest deadline learning may set")
        ->capture_default_str();
}

namespace {

// --deadline-floor's value; a usage error when it is not a duration greater than 0.
plan::Duration parse_deadline_floor(const std::string& floor) {
    const auto value = config::parse_duration(floor);
    if (!value || value->count() <= 0)
        throw Failure(ExitCode::kUsage, "--deadline-floor: cannot read '" + floor + "'",
                      std::string("a duration greater than 0: ") + config::kDurationForms);
    return *value;
}

}  // namespace

void apply_deadline_flags(plan::Plan& plan, const timeline::StartHistory& history, const std::string& policy,
                          const std::string& floor) {
    timeline::apply_deadlines(
        plan, history, parse_deadline_floor(floor),
        policy == "fixed" ? timeline::DeadlinePolicy::kFixed : timeline::DeadlinePolicy::kLearned);
}

void add_junit_flag(CLI::App& command, std::string& path) {
    command
        .add_option("--junit", path,
                    "also write a JUnit XML report to FILE: one test case per check, stage launch and gate, "
                    "with its time and failure text (for CI)")
        ->type_name("FILE");
}

void check_junit_path(const std::string& path) {
    if (path.empty()) return;
    std::string error;
    if (!report::write_junit(path, {}, error))
        throw Failure(ExitCode::kUsage, fmt::format("--junit: cannot write {}: {}", path, error));
}

void write_junit_file(const std::string& path, const std::vector<report::JunitSuite>& suites,
                      const util::Redactor& redactor) {
    if (path.empty()) return;
    std::string error;
    if (!report::write_junit(path, report::redacted(suites, redactor), error))
        spdlog::warn("--junit: cannot write {}: {}", path, error);
}

void add_gpu_release_flag(CLI::App& command, StartOptions& options) {
    command
        .add_option("--gpu-release-timeout", options.gpu_release_timeout,
                    "how long to wait after the units stopped until their nodes show no GPU compute process "
                    "(exit 12 if one remains; 0 = do not wait)")
        ->default_str("60s");
}

void add_skip_doctor_flag(CLI::App& command, StartOptions& options) {
    command.add_flag("--skip-doctor", options.skip_doctor,
                     "emergencies only: start even though `pdctl doctor` finds errors in the config");
    command.add_flag("--skip-preflight", options.skip_preflight,
                     "start without first checking the nodes (GPUs idle, ports free, images, RDMA devices); "
                     "the run records that it was skipped");
}

ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, ops::EngineVerb verb) {
    const std::string name = ops::to_string(verb);
    check_junit_path(options.junit);
    auto context = load_context(global);
    // The static doctor rules gate start/restart before anything touches a node (docs/doctor.md).
    if (verb != ops::EngineVerb::kStop && !options.skip_doctor) {
        const auto refused = doctor_before_start(global, context, name);
        if (refused != ExitCode::kOk) {
            const std::string why = "refused: the static doctor rules found errors (pdctl doctor --static)";
            write_junit_file(options.junit,
                             {{"pdctl " + name,
                               report::junit_timestamp_now(),
                               "",
                               0,
                               {{"pdctl." + name, "doctor (static rules)", 0, why, why, std::nullopt, ""}},
                               ""}},
                             context.redactor);
            return refused;
        }
    }
    ops::EngineRequest request;
    request.verb = verb;
    // A bad flag is refused before the lock is taken.
    if (verb != ops::EngineVerb::kStop) request.deadline_floor = parse_deadline_floor(options.deadline_floor);
    request.scope = options.scope;
    request.keep_on_failure = options.keep_on_failure;
    request.skip_preflight = options.skip_preflight;
    request.gpu_release_timeout = parse_wait("--gpu-release-timeout", options.gpu_release_timeout);
    request.drain_grace = parse_wait("--drain-grace", options.drain_grace);
    request.rolling = options.rolling;
    request.allow_router_restart = options.allow_router_restart;
    request.deadline_policy = options.deadline_policy == "fixed" ? timeline::DeadlinePolicy::kFixed
                                                                 : timeline::DeadlinePolicy::kLearned;
    auto reporter = make_reporter(global, context.redactor);
    // --junit: a recorder of the engine's events, written whatever the run's end.
    engine::SilentReporter unseen;
    report::JunitReporter junit(unseen, name);
    if (!options.junit.empty()) request.recorder = &junit;
    ExitCode code = ExitCode::kInternal;
    try {
        code = ops::run_engine(context, request, *reporter);
    } catch (const std::exception& error) {
        if (!options.junit.empty()) {
            junit.fail_run(error.what());
            write_junit_file(options.junit, {junit.suite()}, context.redactor);
        }
        throw;
    }
    write_junit_file(options.junit, {junit.suite()}, context.redactor);
    return code;
}

}  // namespace pdctl::cli
