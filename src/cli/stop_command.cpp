// pdctl stop: every stage in reverse order, then the GPU release wait; idempotent.
#include <CLI/CLI.hpp>
#include <memory>

#include "engine_verb.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {

void add_stop_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<StartOptions>();
    auto* command = app.add_subcommand(
        "stop", "stop every stage in reverse order (idempotent), then wait until the GPUs are free");
    add_gpu_release_flag(*command, *options);
    add_scope_flags(*command, options->scope);
    verbs.add(command, [options](const GlobalOptions& global) {
        return run_engine_verb(global, *options, ops::EngineVerb::kStop);
    });
}

}  // namespace pdctl::cli
