// pdctl exec [--role R] [--group G] [--node N] [--rank K] [--in-container] -- CMD ARGS...: one command on
// the selected nodes (or in the selected units' containers) in parallel, its output folded by identical
// text with the nodes that printed it, then every exit code. The runbook's `for h in ...; do ssh $h ...`.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>

#include "pdctl/config/duration.hpp"
#include "pdctl/plan/exec_targets.hpp"
#include "pdctl/report/exec_view.hpp"
#include "pdctl/util/parallel.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct ExecOptions {
    plan::ExecSelection selection;
    int rank = -1;
    std::string timeout = "60s";
    std::vector<std::string> argv;
};

ExitCode exec_command(const GlobalOptions& global, ExecOptions options) {
    if (options.rank >= 0) options.selection.rank = options.rank;
    const auto timeout = config::parse_duration(options.timeout);
    if (!timeout || timeout->count() <= 0)
        throw Failure(ExitCode::kUsage, "--timeout: cannot read '" + options.timeout + "'",
                      std::string("a duration: ") + config::kDurationForms);
    auto context = load_context(global);
    const auto targets = plan::exec_targets(context.plan, options.selection, options.argv, *timeout);
    std::vector<report::ExecAnswer> answers(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& target = targets[i];
        const auto* node = context.cluster.find_node(target.node);
        answers[i] = {target.label, target.node, target.unit, context.executor->run(*node, target.command)};
    });
    const auto text = global.json ? report::exec_to_json(answers).dump(2) : report::render_exec_text(answers);
    fmt::print("{}", context.redactor.redact(text));
    if (global.json) fmt::print("\n");
    return report::exec_exit_code(answers);
}

}  // namespace

void add_exec_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<ExecOptions>();
    auto* command = app.add_subcommand(
        "exec",
        "run a command on the selected nodes in parallel; identical output is shown once with its nodes");
    add_scope_flags(*command, options->selection.scope);
    command->add_option("--node", options->selection.nodes, "only this node (repeatable)")
        ->allow_extra_args(false);
    command->add_option("--rank", options->rank,
                        "only this rank of each selected group (needs --role/--group)");
    command->add_flag("--in-container", options->selection.in_container,
                      "in each selected unit's container (docker/podman exec), not on the host");
    command->add_option("--timeout", options->timeout, "per node")->default_str("60s");
    command->add_option("command", options->argv, "the command and its arguments, after --")->required();
    verbs.add(command, [options](const GlobalOptions& global) { return exec_command(global, *options); });
}

}  // namespace pdctl::cli
