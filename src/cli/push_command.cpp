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

struct RelayFlags {
    bool relay = false;
    int port = push::RelayOptions{}.port;
};

ExitCode push_command(const GlobalOptions& global, const ops::NodeSelection& selection,
                      const RelayFlags& flags) {
    auto context = load_context(global, Purpose::kOnNodes, "push");
    if (context.cluster.files.empty()) {
        fmt::print(stderr, "pdctl: nothing to push: {} declares no `files:` (docs/config.md)\n",
                   context.cluster.config_path);
        return ExitCode::kOk;
    }
    report::PushPrinter printer(stdout, global.json, context.redactor);
    std::optional<push::RelayOptions> relay;
    if (flags.relay) {
        relay.emplace();
        relay->port = flags.port;
    }
    return ops::run_push(context, printer, ops::selected_nodes(context, selection), relay);
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
    auto relay = std::make_shared<RelayFlags>();
    command->add_flag(
        "--relay", relay->relay,
        "stream each file once through a chain of the nodes that lack it, each forwarding to the "
        "next as it receives (plain TCP between nodes, python3 on them; every copy sha256-checked "
        "on its node): N nodes in about the time of one copy");
    command->add_option("--relay-port", relay->port, "the TCP port the nodes of the chain listen on")
        ->capture_default_str()
        ->check(CLI::Range(1, 65535));
    verbs.add(command, [selection, relay](const GlobalOptions& global) {
        return push_command(global, *selection, *relay);
    });
}

}  // namespace pdctl::cli
