// pdctl restart: stop, then start; a unit that survives the stop means no start (docs/architecture.md).
#include <CLI/CLI.hpp>
#include <memory>

#include "engine_verb.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {

void add_restart_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<StartOptions>();
    auto* command = app.add_subcommand("restart", "stop, then start");
    command->add_flag("--keep-on-failure", options->keep_on_failure, "as for start");
    add_skip_doctor_flag(*command, *options);
    add_gpu_release_flag(*command, *options);
    add_scope_flags(*command, options->scope);
    verbs.add(command, [options](const GlobalOptions& global) {
        return run_engine_verb(global, *options, "restart",
                               [](engine::Engine& engine) { return engine.restart(); });
    });
}

}  // namespace pdctl::cli
