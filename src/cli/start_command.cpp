// pdctl start: every stage in order, gated by health checks; a second start on a healthy cluster
// changes nothing (docs/architecture.md).
#include <CLI/CLI.hpp>
#include <memory>

#include "engine_verb.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {

void add_start_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<StartOptions>();
    auto* command = app.add_subcommand("start", "start every stage in order, gated by health checks");
    command->add_flag("--keep-on-failure", options->keep_on_failure,
                      "leave what this run started when it fails (default: stop it, in reverse order)");
    add_skip_doctor_flag(*command, *options);
    add_deadline_flags(*command, options->deadline_policy, options->deadline_floor);
    add_transfer_error_limit_flag(*command, options->transfer_error_limit);
    add_junit_flag(
        *command, options->junit,
        "one test case per preflight check, stage launch and gate, with its time and failure text");
    add_scope_flags(*command, options->scope);
    command->add_flag("--prewarm", options->prewarm,
                      "read every rank's model files into its node's page cache while the preflight and "
                      "the earlier stages run (all nodes at once); a rank launches once its node has them, "
                      "and how much stayed resident is said at the end");
    command->add_flag(
        "--take-over", options->take_over,
        "first stop what holds the planned ports, GPUs or images without being pdctl's (a "
        "deploy_pd.sh deployment): containers are stopped and kept, never removed (docs/migrating.md)");
    command->add_flag("--dry-run", options->dry_run,
                      "with --take-over: list what it would stop, and touch nothing");
    verbs.add(command, [options](const GlobalOptions& global) {
        return run_engine_verb(global, *options, ops::EngineVerb::kStart);
    });
}

}  // namespace pdctl::cli
