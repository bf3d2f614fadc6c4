// pdctl stop: every stage in reverse order; idempotent.
#include <CLI/CLI.hpp>

#include "engine_verb.hpp"
#include "verbs.hpp"

namespace pdctl::cli {

void add_stop_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand("stop", "stop every stage in reverse order (idempotent)");
    verbs.add(command, [](const GlobalOptions& global) {
        return run_engine_verb(global, {}, "stop", [](engine::Engine& engine) { return engine.stop(); });
    });
}

}  // namespace pdctl::cli
