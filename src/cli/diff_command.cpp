// pdctl diff: what runs on the nodes against what the config says, per group (ops/diff.hpp). Exit 0
// when nothing differs and 1 when something does, as diff(1) and `kubectl diff` answer.
#include <CLI/CLI.hpp>

#include "pdctl/ops/diff.hpp"
#include "pdctl/report/diff_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode diff_command(const GlobalOptions& global) {
    auto context = load_context(global);
    const auto result = ops::diff_deployment(context);
    const auto& config_path = context.cluster.config_path;
    print_result(
        global, context.redactor, [&] { return report::diff_to_json(result, config_path); },
        [&] { return report::render_diff_text(result, config_path); });
    if (result.differs()) return ExitCode::kDiffers;
    return result.unreachable.empty() ? ExitCode::kOk : ExitCode::kUnreachable;
}

}  // namespace

void add_diff_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand(
        "diff",
        "what runs against what the config says, per group: image (tag and ID), flags, environment "
        "(secrets as changed or not), files, groups added, removed or moved between prefill and decode; "
        "exit 0: nothing differs, 1: something does");
    verbs.add(command, diff_command);
}

}  // namespace pdctl::cli
