// pdctl restart: stop, then start; a unit that survives the stop means no start (docs/architecture.md).
// With --rolling, one group at a time through the router (docs/operations.md).
#include <CLI/CLI.hpp>
#include <memory>

#include "duration_flag.hpp"
#include "engine_verb.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {

void add_restart_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<StartOptions>();
    auto* command = app.add_subcommand("restart", "stop, then start");
    command->add_flag("--keep-on-failure", options->keep_on_failure, "as for start");
    command->add_flag("--prewarm", options->prewarm, "as for start");
    add_skip_doctor_flag(*command, *options);
    add_deadline_flags(*command, options->deadline_policy, options->deadline_floor);
    add_transfer_error_limit_flag(*command, options->transfer_error_limit);
    add_junit_flag(
        *command, options->junit,
        "one test case per preflight check, stage launch and gate, with its time and failure text");
    add_gpu_release_flag(*command, *options);
    add_scope_flags(*command, options->scope);
    auto* rolling = command->add_flag(
        "--rolling", options->rolling,
        "with --role/--group: one group at a time, each taken out of the router while it restarts, so that "
        "requests keep succeeding (sglang-router, SMG; docs/operations.md)");
    command
        ->add_flag("--allow-router-restart", options->allow_router_restart,
                   "with --rolling and a MiniLB router (fixed worker list): stop the router while the groups "
                   "restart, and say how long it was down")
        ->needs(rolling);
    auto* gated = command->add_flag(
        "--gated", options->gated,
        "with --role/--group of decode groups in containers: start the new ranks beside the "
        "old ones, which keep serving, behind SGLang's launch gate (--gated-launch-port); "
        "stop the old ones once every new rank joined, then open the gate "
        "(docs/warm-restarts.md)");
    command
        ->add_option("--gate-port", options->gate_port,
                     "with --gated: the new rank 0's gate port on its node, or the one after it when the "
                     "old ranks hold this one")
        ->default_str("30100")
        ->type_name("PORT")
        ->check(CLI::Range(1, 65534).description(""))
        ->needs(gated);
    command
        ->add_option("--drain-grace", options->drain_grace,
                     "with --rolling: how long a group keeps running after the router dropped it, for the "
                     "requests it still has")
        ->default_str("30s")
        ->type_name(kDurationMetavar)
        ->needs(rolling);
    verbs.add(command, [options](const GlobalOptions& global) {
        return run_engine_verb(global, *options, ops::EngineVerb::kRestart);
    });
}

}  // namespace pdctl::cli
