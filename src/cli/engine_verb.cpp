#include "engine_verb.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <optional>
#include <set>

#include "doctor_gate.hpp"
#include "journal_source.hpp"
#include "mutating_run.hpp"
#include "pdctl/config/duration.hpp"
#include "pdctl/doctor/gpu_use.hpp"
#include "pdctl/doctor/preflight.hpp"
#include "pdctl/doctor/slurm_preflight.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/report/junit_reporter.hpp"
#include "pdctl/report/pace_reporter.hpp"
#include "pdctl/timeline/start_history.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::cli {
namespace {

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

engine::Duration parse_wait(const std::string& flag, const std::string& text) {
    const auto timeout = config::parse_duration(text);
    if (!timeout || timeout->count() < 0)
        throw Failure(ExitCode::kUsage, flag + ": cannot read '" + text + "'",
                      std::string("a duration (0 = do not wait): ") + config::kDurationForms);
    return *timeout;
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

// The start preflight (docs/doctor.md, "Preflight") over the stages the engine is about to start.
engine::Preflight preflight(const Context& context, exec::Executor& executor) {
    return [&context, &executor](const std::vector<std::string>& roles) {
        const auto result = context.cluster.executor == config::ExecutorKind::Slurm
                                ? doctor::run_slurm_preflight(context.plan, executor, roles)
                                : doctor::run_preflight(context.cluster, context.plan, executor, roles);
        engine::PreflightAnswer answer;
        answer.nodes = result.nodes;
        for (const auto& finding : result.findings) {
            const auto text = context.redactor.redact(finding.id + " " + finding.message);
            (finding.severity == lint::Severity::Error ? answer.problems : answer.notes).push_back(text);
        }
        return answer;
    };
}

// nvidia-smi's compute processes on a node, for the engine's GPU release wait.
engine::GpuUseQuery gpu_use_query(exec::Executor& executor) {
    return [&executor](const config::Node& node) {
        const auto apps = doctor::read_gpu_apps(executor.run(node, doctor::gpu_apps_command()));
        engine::GpuUse use;
        use.checked = apps.nvidia_smi;
        use.error = apps.error;
        for (const auto& app : apps.apps) use.holders.push_back(doctor::describe(app));
        return use;
    };
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

ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, const std::string& verb,
                         const std::function<ExitCode(engine::Engine&)>& action) {
    check_junit_path(options.junit);
    auto context = load_context(global);
    // The static doctor rules gate start/restart before anything touches a node (docs/doctor.md).
    if (verb != "stop" && !options.skip_doctor) {
        const auto refused = doctor_before_start(global, context, verb);
        if (refused != ExitCode::kOk) {
            const std::string why = "refused: the static doctor rules found errors (pdctl doctor --static)";
            write_junit_file(options.junit,
                             {{"pdctl " + verb,
                               report::junit_timestamp_now(),
                               "",
                               0,
                               {{"pdctl." + verb, "doctor (static rules)", 0, why, why, std::nullopt, ""}},
                               ""}},
                             context.redactor);
            return refused;
        }
    }
    // A bad flag is refused before the lock is taken.
    if (verb != "stop") parse_deadline_floor(options.deadline_floor);
    auto& executor = *context.executor;
    auto reporter = make_reporter(global, context.redactor);
    health::RealHttpProber prober;
    engine::RealClock clock;
    engine::EngineOptions engine_options;
    engine_options.keep_on_failure = options.keep_on_failure;
    engine_options.start_hook = sigkill_hook_from_environment();
    engine_options.gpu_release_timeout = parse_wait("--gpu-release-timeout", options.gpu_release_timeout);
    engine_options.drain_grace = parse_wait("--drain-grace", options.drain_grace);
    // Under SLURM the nodes are not reached: a job that has left squeue has released its GRES.
    if (context.cluster.executor != config::ExecutorKind::Slurm)
        engine_options.gpu_use = gpu_use_query(executor);
    engine_options.preflight_skipped = options.skip_preflight;
    if (verb != "stop" && !options.skip_preflight) engine_options.preflight = preflight(context, executor);
    engine_options.scoped = !options.scope.empty();
    // A rolling restart acts on the stages its steps name (and its router), with its own engine call.
    std::optional<plan::RollingPlan> rolling;
    if (options.rolling)
        rolling = plan::rolling_plan(context.plan, options.scope, options.allow_router_restart);
    auto scoped = rolling ? plan::ScopedPlan{rolling_stages(context.plan, *rolling), {}}
                          : plan::scope_plan(context.plan, options.scope, verb);
    engine::install_interrupt_handlers();
    // Under the deploy lock, with every event journaled (docs/lock-and-history.md).
    return run_mutating_verb(context, executor, *reporter, verb, [&](engine::Reporter& journaled) {
        for (const auto& why : scoped.closure) journaled.note(why);
        if (verb == "stop") {
            engine::Engine engine(scoped.plan, executor, prober, clock, journaled, engine_options);
            return action(engine);
        }
        // Past starts, read under the lock: the learned deadlines and the pace warnings of this one.
        // A journal that cannot be read costs the learning, never the start.
        JournalText journal;
        try {
            journal = read_journal(context);
        } catch (const Failure& failure) {
            spdlog::warn("{}; the configured gate deadlines apply", failure.what());
        }
        auto history = timeline::start_history(timeline::read_timelines(journal.text));
        apply_deadline_flags(scoped.plan, history, options.deadline_policy, options.deadline_floor);
        for (const auto& stage : scoped.plan.stages)
            if (timeline::deadline_learned(stage.gate))
                journaled.note(fmt::format("{} gate deadline {}: {}", stage.role,
                                           util::format_elapsed(stage.gate.deadline),
                                           stage.gate.deadline_note));
        report::PaceReporter paced(journaled, std::move(history));
        report::JunitReporter junit(paced, verb);
        engine::Reporter* sink = &paced;
        if (!options.junit.empty()) sink = &junit;
        engine::Engine engine(scoped.plan, executor, prober, clock, *sink, engine_options);
        ExitCode code = ExitCode::kInternal;
        try {
            code = rolling ? engine.rolling_restart(*rolling) : action(engine);
        } catch (const std::exception& error) {
            junit.fail_run(error.what());
            write_junit_file(options.junit, {junit.suite()}, context.redactor);
            throw;
        }
        write_junit_file(options.junit, {junit.suite()}, context.redactor);
        return code;
    });
}

}  // namespace pdctl::cli
