// pdctl push: the config's `files:` to their nodes (ops/push.hpp).

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "pdctl/ops/push.hpp"
#include "pdctl/report/push_view.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode push_command(const GlobalOptions& global) {
    auto context = load_context(global, Purpose::kOnNodes, "push");
    if (context.cluster.files.empty()) {
        fmt::print(stderr, "pdctl: nothing to push: {} declares no `files:` (docs/config.md)\n",
                   context.cluster.config_path);
        return ExitCode::kOk;
    }
    report::PushPrinter printer(stdout, global.json, context.redactor);
    return ops::run_push(context, printer);
}

}  // namespace

void add_push_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand(
        "push",
        "copy the config's `files:` to their nodes in parallel: sha256-verified, identical files skipped");
    verbs.add(command, push_command);
}

}  // namespace pdctl::cli
