// pdctl logs ROLE: a role's log lines, the last ones, --since a moment, or --follow.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/logs.hpp"
#include "pdctl/report/logs_view.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode logs_command(const GlobalOptions& global, const ops::LogsRequest& request) {
    auto context = load_context(global);
    report::LogPrinter printer(context.redactor);
    return ops::show_logs(context, request, printer);
}

}  // namespace

void add_logs_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<ops::LogsRequest>();
    auto* command =
        app.add_subcommand("logs", "a role's log lines: the last ones, --since a moment, or --follow");
    command->add_option("role", options->role, "role name (every group of it), or one group's name")
        ->type_name("ROLE|GROUP");
    add_scope_flags(*command, options->scope);
    command->add_option("--node", options->nodes, "only this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    command->add_option("--rank", options->rank, "only this rank");
    command->add_option("--tail", options->tail, "lines per unit (default 50; with --since, every line)");
    command->add_option("--since", options->since,
                        "only lines from this moment on: a duration (90s, 10m, 2h) or a time on the node "
                        "(2026-11-29 08:12[:03])");
    command->add_flag("-f,--follow", options->follow, "keep printing new lines until Ctrl-C");
    command->add_flag("-p,--previous", options->previous,
                      "the log each unit left when pdctl last stopped or replaced it (kept on its node)");
    verbs.add(command, [options](const GlobalOptions& global) { return logs_command(global, *options); });
}

}  // namespace pdctl::cli
