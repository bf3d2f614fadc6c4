// pdctl pull: the images of the docker-runtime roles on their nodes (ops/pull.hpp).

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "duration_flag.hpp"
#include "pdctl/ops/pull.hpp"
#include "pdctl/report/pull_view.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct PullOptions {
    plan::Scope scope;               // --role / --group: only these groups' images (on their nodes)
    std::vector<std::string> nodes;  // --node: only on these nodes
    std::string timeout = "60m";     // one `<cli> pull`; images of 30+ GB take many minutes
};

ExitCode pull_command(const GlobalOptions& global, const PullOptions& options) {
    auto context = load_context(global, Purpose::kOnNodes, "pull");
    const auto selected = ops::select_pulls(context, options.scope, options.nodes);
    pull::PullOptions pull_options;
    pull_options.timeout = parse_duration_flag("--timeout", options.timeout);
    const auto& plan = selected.plan;
    if (plan.empty()) {
        fmt::print(stderr,
                   "pdctl: nothing to pull: no role{} runs with `runtime: docker` and an image (process "
                   "roles need no image)\n",
                   selected.narrowed ? " selected by --role/--group/--node" : "");
        return ExitCode::kOk;
    }

    report::PullPrinter printer(stdout, global.json, context.redactor);
    return ops::run_pull(context, plan, pull_options, printer);
}

}  // namespace

void add_pull_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<PullOptions>();
    auto* command = app.add_subcommand(
        "pull",
        "pull the docker-runtime roles' images on their nodes in parallel, then require one image ID "
        "per image on every node");
    add_scope_flags(*command, options->scope);
    command->add_option("--node", options->nodes, "only on this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    command->add_option("--timeout", options->timeout, "per pull: 90s, 25m, 2h")
        ->capture_default_str()
        ->type_name(kDurationMetavar);
    verbs.add(command, [options](const GlobalOptions& global) { return pull_command(global, *options); });
}

}  // namespace pdctl::cli
