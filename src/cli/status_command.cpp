// pdctl status: every role and node: state, rank, health, uptime, config drift.
#include <CLI/CLI.hpp>
#include <memory>
#include <utility>

#include "pdctl/ops/status.hpp"
#include "pdctl/report/status_view.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode status_command(const GlobalOptions& global, const plan::Scope& scope,
                        engine::StatusRequest request) {
    auto context = load_context(global);
    const auto status = ops::read_status(context, scope, std::move(request));
    print_result(
        global, context.redactor, [&] { return report::status_to_json(status); },
        [&] {
            const auto text = report::render_status_text(status);
            return text.ends_with('\n') ? text : text + "\n";
        });
    return engine::status_exit_code(status);
}

}  // namespace

void add_status_verb(CLI::App& app, Verbs& verbs) {
    auto* command =
        app.add_subcommand("status", "every role and node: state, rank, health, uptime, config drift");
    auto scope = std::make_shared<plan::Scope>();
    add_scope_flags(*command, *scope);
    auto request = std::make_shared<engine::StatusRequest>();
    command->add_flag(
        "--metrics", request->metrics,
        "also each role's Prometheus numbers: running and queued requests, KV usage, throughput");
    command->add_flag("--probe", request->probe,
                      "send a one-token POST /generate through each router, as start's gate does; without "
                      "it the router's readiness is what it says of itself and its workers");
    verbs.add(command, [scope, request](const GlobalOptions& global) {
        return status_command(global, *scope, *request);
    });
}

}  // namespace pdctl::cli
