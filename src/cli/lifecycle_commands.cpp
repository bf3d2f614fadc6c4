// start, stop, restart: the verbs that change the cluster.
#include "commands.hpp"
#include "mutating_run.hpp"
#include "pdctl/engine/engine.hpp"

namespace pdctl::cli {
namespace {

template <typename Action>
ExitCode with_engine(const GlobalOptions& global, const StartOptions& options, const std::string& verb,
                     Action action) {
    auto context = load_context(global);
    // The static doctor rules gate start/restart before anything touches a node (docs/doctor.md).
    if (verb != "stop" && !options.skip_doctor) {
        const auto refused = doctor_before_start(global, context, verb);
        if (refused != ExitCode::kOk) return refused;
    }
    auto& executor = require_executor(context);
    auto reporter = make_reporter(global, context.redactor);
    health::RealHttpProber prober;
    engine::RealClock clock;
    engine::EngineOptions engine_options;
    engine_options.keep_on_failure = options.keep_on_failure;
    engine::install_interrupt_handlers();
    // Under the deploy lock, with every event journaled (docs/lock-and-history.md).
    return run_mutating_verb(context, executor, *reporter, verb, [&](report::Reporter& journaled) {
        engine::Engine engine(context.plan, executor, prober, clock, journaled, engine_options);
        return action(engine);
    });
}

}  // namespace

exec::Executor& require_executor(const Context& context) {
    if (!context.executor) {
        throw Failure(ExitCode::kUsage,
                      "executor '" + config::to_string(context.cluster.executor) + "' of " +
                          context.cluster.config_path + " is not available in this build",
                      "the SSH executor is being built (issue #3); `plan` works for every config, and "
                      "`executor: local` drives the simulated cluster");
    }
    return *context.executor;
}

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
