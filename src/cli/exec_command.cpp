// pdctl exec [--role R] [--group G] [--node N] [--rank K] [--in-container] -- CMD ARGS...: one command on
// the selected nodes (or in the selected units' containers) in parallel, its output folded by identical
// text with the nodes that printed it, then every exit code. The runbook's `for h in ...; do ssh $h ...`.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "duration_flag.hpp"
#include "pdctl/ops/exec.hpp"
#include "pdctl/report/exec_view.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct ExecOptions {
    plan::ExecSelection selection;
    bool stream = false;
    int rank = -1;
    std::string timeout = "60s";
    std::vector<std::string> argv;
};

ExitCode exec_command(const GlobalOptions& global, ExecOptions options) {
    if (options.rank >= 0) options.selection.rank = options.rank;
    const auto timeout = parse_duration_flag("--timeout", options.timeout);
    if (options.stream && global.json)
        throw Failure(ExitCode::kUsage, "--stream prints lines as they come; --json one document at the end",
                      "pick one of --stream and --json");
    auto context = load_context(global, Purpose::kOnNodes, "exec");
    report::ExecLinePrinter printer(context.redactor);
    const auto answers = ops::run_exec(context, {options.selection, options.argv, timeout},
                                       options.stream ? &printer : nullptr);
    if (options.stream) {
        // The lines are out already; what is left is how each node ended (and who could not be reached).
        for (const auto& answer : answers)
            if (!answer.result.transport_error.empty())
                fmt::print(stderr, "{}: {}\n", answer.label,
                           context.redactor.redact(answer.result.transport_error));
        fmt::print("{}", report::render_exec_outcomes(answers));
        return ops::exec_exit_code(answers);
    }
    print_result(
        global, context.redactor, [&] { return report::exec_to_json(answers); },
        [&] { return report::render_exec_text(answers); });
    return ops::exec_exit_code(answers);
}

}  // namespace

void add_exec_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<ExecOptions>();
    auto* command = app.add_subcommand(
        "exec",
        "run a command on the selected nodes in parallel; identical output is shown once with its nodes");
    add_scope_flags(*command, options->selection.scope);
    command->add_option("--node", options->selection.nodes, "only this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    command->add_option("--rank", options->rank,
                        "only this rank of each selected group (needs --role/--group)");
    command->add_flag("--in-container", options->selection.in_container,
                      "in each selected unit's container (docker/podman exec), not on the host");
    command->add_option("--timeout", options->timeout, "per node")
        ->default_str("60s")
        ->type_name(kDurationMetavar);
    command->add_flag(
        "--stream", options->stream,
        "print each line as it arrives, prefixed with its node (pdsh style), then the exit codes");
    command->add_option("command", options->argv, "the command and its arguments, after --")->required();
    verbs.add(command, [options](const GlobalOptions& global) { return exec_command(global, *options); });
}

}  // namespace pdctl::cli
