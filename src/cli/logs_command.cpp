// pdctl logs ROLE: a role's log lines, the last ones, --since a moment, --follow, --previous; or
// --bundle FILE: every unit's logs, the plan, status and the newest runs in one archive (ops/log_bundle.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "duration_flag.hpp"
#include "pdctl/ops/log_bundle.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/report/junit.hpp"
#include "pdctl/report/logs_json.hpp"
#include "pdctl/report/logs_view.hpp"
#include "pdctl/report/plan_view.hpp"
#include "pdctl/report/status_view.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct LogsOptions {
    ops::LogsRequest request;
    std::string bundle;  // --bundle FILE
};

ExitCode write_bundle(const GlobalOptions& global, const ops::LogsRequest& request, const std::string& path) {
    ops::check_bundle_path(path);
    auto context = load_context(global);
    ops::BundleRenderings renderings;
    renderings.plan_text = [](const plan::Plan& plan) { return report::render_plan_text(plan, "start"); };
    renderings.status_json = [](const auto& status) { return report::status_to_json(status).dump(2) + "\n"; };
    renderings.now_utc = [] { return report::junit_timestamp_now(); };
    const auto written = ops::write_incident_bundle(context, {request, path}, renderings);
    fmt::print("{}", context.redactor.redact(report::render_bundle_written(path, written)));
    return written.code;
}

ExitCode logs_command(const GlobalOptions& global, const LogsOptions& options) {
    const auto& request = options.request;
    if (!options.bundle.empty()) {
        if (global.json)
            throw Failure(ExitCode::kUsage,
                          "--bundle writes an archive and one line about it; it has no --json output",
                          "leave out --json; the archive holds status.json");
        if (request.follow || request.previous || request.tail >= 0 || !request.since.empty())
            throw Failure(ExitCode::kUsage, "--bundle takes every line of every log",
                          "leave out --follow, --previous, --tail and --since");
        return write_bundle(global, request, options.bundle);
    }
    auto context = load_context(global);
    if (global.json) {
        report::LogJsonPrinter printer(context.redactor);
        return ops::show_logs(context, request, printer);
    }
    report::LogPrinter printer(context.redactor);
    return ops::show_logs(context, request, printer);
}

}  // namespace

void add_logs_verb(CLI::App& app, Verbs& verbs) {
    auto all = std::make_shared<LogsOptions>();
    auto* options = &all->request;
    auto* command = app.add_subcommand(
        "logs",
        "a role's log lines: the last ones, --since a moment, or --follow; with --json, one "
        "JSON object per line (JSON Lines)");
    command->add_option("role", options->role, "role name (every group of it), or one group's name")
        ->type_name("ROLE|GROUP");
    add_scope_flags(*command, options->scope);
    command->add_option("--node", options->nodes, "only this node (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    command->add_option("--rank", options->rank, "only this rank");
    command->add_option("--tail", options->tail, "lines per unit (default 50; with --since, every line)");
    command
        ->add_option("--since", options->since,
                     "only lines from this moment on: a duration (90s, 10m, 2h) or a time on the node "
                     "(2026-11-29 08:12[:03])")
        ->type_name(std::string(kDurationMetavar) + "|TIME");
    command->add_flag("-f,--follow", options->follow, "keep printing new lines until Ctrl-C");
    command->add_flag("-p,--previous", options->previous,
                      "the log each unit left when pdctl last stopped or replaced it (kept on its node)");
    command
        ->add_option("--bundle", all->bundle,
                     "write every selected unit's current and kept log, the plan, status --json and the "
                     "newest recorded runs to FILE (.tar.gz) for an incident ticket; no ROLE: every unit")
        ->type_name("FILE");
    verbs.add(command, [all](const GlobalOptions& global) { return logs_command(global, *all); });
}

}  // namespace pdctl::cli
