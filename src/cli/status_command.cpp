// pdctl status: every role and node: state, rank, health, uptime, config drift.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/status.hpp"
#include "pdctl/report/status_view.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode status_command(const GlobalOptions& global, const plan::Scope& scope, bool metrics) {
    auto context = load_context(global);
    const auto status = ops::read_status(context, scope, metrics);
    const std::string text =
        global.json ? report::status_to_json(status).dump(2) : report::render_status_text(status);
    fmt::print("{}{}", context.redactor.redact(text), text.ends_with('\n') ? "" : "\n");
    return engine::status_exit_code(status);
}

}  // namespace

void add_status_verb(CLI::App& app, Verbs& verbs) {
    auto* command =
        app.add_subcommand("status", "every role and node: state, rank, health, uptime, config drift");
    auto scope = std::make_shared<plan::Scope>();
    add_scope_flags(*command, *scope);
    auto metrics = std::make_shared<bool>(false);
    command->add_flag(
        "--metrics", *metrics,
        "also each role's Prometheus numbers: running and queued requests, KV usage, throughput");
    verbs.add(command, [scope, metrics](const GlobalOptions& global) {
        return status_command(global, *scope, *metrics);
    });
}

}  // namespace pdctl::cli
