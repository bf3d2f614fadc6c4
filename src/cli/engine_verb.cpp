#include "engine_verb.hpp"

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "doctor_gate.hpp"
#include "mutating_run.hpp"

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

}  // namespace

void add_skip_doctor_flag(CLI::App& command, StartOptions& options) {
    command.add_flag("--skip-doctor", options.skip_doctor,
                     "emergencies only: start even though `pdctl doctor` finds errors in the config");
}

ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, const std::string& verb,
                         const std::function<ExitCode(engine::Engine&)>& action) {
    auto context = load_context(global);
    // The static doctor rules gate start/restart before anything touches a node (docs/doctor.md).
    if (verb != "stop" && !options.skip_doctor) {
        const auto refused = doctor_before_start(global, context, verb);
        if (refused != ExitCode::kOk) return refused;
    }
    auto& executor = *context.executor;
    auto reporter = make_reporter(global, context.redactor);
    health::RealHttpProber prober;
    engine::RealClock clock;
    engine::EngineOptions engine_options;
    engine_options.keep_on_failure = options.keep_on_failure;
    engine_options.start_hook = sigkill_hook_from_environment();
    engine::install_interrupt_handlers();
    // Under the deploy lock, with every event journaled (docs/lock-and-history.md).
    return run_mutating_verb(context, executor, *reporter, verb, [&](engine::Reporter& journaled) {
        engine::Engine engine(context.plan, executor, prober, clock, journaled, engine_options);
        return action(engine);
    });
}

}  // namespace pdctl::cli
