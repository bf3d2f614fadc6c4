// start, stop, restart: the verbs that change the cluster.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "commands.hpp"
#include "doctor_gate.hpp"
#include "mutating_run.hpp"
#include "pdctl/engine/engine.hpp"

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

template <typename Action>
ExitCode with_engine(const GlobalOptions& global, const StartOptions& options, const std::string& verb,
                     Action action) {
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
    return run_mutating_verb(context, executor, *reporter, verb, [&](report::Reporter& journaled) {
        engine::Engine engine(context.plan, executor, prober, clock, journaled, engine_options);
        return action(engine);
    });
}

}  // namespace

ExitCode start_command(const GlobalOptions& global, const StartOptions& options) {
    return with_engine(global, options, "start", [](engine::Engine& engine) { return engine.start(); });
}

ExitCode stop_command(const GlobalOptions& global) {
    return with_engine(global, {}, "stop", [](engine::Engine& engine) { return engine.stop(); });
}

ExitCode restart_command(const GlobalOptions& global, const StartOptions& options) {
    return with_engine(global, options, "restart", [](engine::Engine& engine) { return engine.restart(); });
}

}  // namespace pdctl::cli
