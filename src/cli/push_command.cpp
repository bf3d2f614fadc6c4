// pdctl push: the config's `files:` to their nodes (ops/push.hpp).

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/node_selection.hpp"
#include "pdctl/ops/push.hpp"
#include "pdctl/report/push_view.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode push_command(const GlobalOptions& global, const ops::NodeSelection& selection) {
    auto context = load_context(global, Purpose::kOnNodes, "push");
    if (context.cluster.files.empty()) {
        fmt::print(stderr, "pdctl: nothing to push: {} declares no `files:` (docs/config.md)\n",
                   context.cluster.config_path);
        return ExitCode::kOk;
    }
    report::PushPrinter printer(stdout, global.json, context.redactor);
    return ops::run_push(context, printer, ops::selected_nodes(context, selection));
}

}  // namespace

void add_push_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand(
        "push",
        "copy the config's `files:` to their nodes in parallel: sha256-verified, identical files skipped");
    auto selection = std::make_shared<ops::NodeSelection>();
    add_scope_flags(*command, selection->scope);
    command->add_option("--node", selection->nodes, "only to this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    verbs.add(command, [selection](const GlobalOptions& global) { return push_command(global, *selection); });
}

}  // namespace pdctl::cli
