// pdctl logs ROLE: a role's log lines, the last ones, --since a moment, --follow, --previous; or
// --bundle FILE: every unit's logs, the plan, status and the journal in one archive.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "duration_flag.hpp"
#include "pdctl/ops/log_bundle.hpp"
#include "pdctl/ops/logs.hpp"
#include "pdctl/ops/status.hpp"
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

std::string bundle_manifest(const ops::Bundle& bundle, const Context& context, const std::string& when) {
    std::string text = "pdctl " + std::string(PDCTL_VERSION) + " bundle of cluster " + context.cluster.name +
                       ", " + when + " UTC, from " + context.cluster.config_path + "\n\n";
    for (const auto& file : bundle.files) text += fmt::format("{:>10}  {}\n", file.content.size(), file.path);
    if (!bundle.not_running.empty())
        text += "\nnot running (no current log; their kept logs are under previous/): " +
                fmt::format("{}", fmt::join(bundle.not_running, ", ")) + "\n";
    if (!bundle.missing.empty()) text += "\nnot collected:\n";
    for (const auto& why : bundle.missing) text += "  " + why + "\n";
    return text;
}

ExitCode write_bundle(const GlobalOptions& global, const ops::LogsRequest& request, const std::string& path) {
    // Refused before any node is asked: collecting every log takes a while.
    if (!std::ofstream(path, std::ios::binary | std::ios::app))
        throw Failure(ExitCode::kUsage, "cannot write the bundle " + path + ": " + std::strerror(errno),
                      "a writable path, e.g. ./incident.tar.gz");
    auto context = load_context(global);
    auto bundle = ops::collect_bundle(context, request);
    const auto redact = [&](const std::string& text) { return context.redactor.redact(text); };
    bundle.files.push_back({"plan.txt", redact(report::render_plan_text(context.plan, "start"))});
    const auto status = ops::read_status(context, request.scope);
    bundle.files.push_back({"status.json", redact(report::status_to_json(status).dump(2) + "\n")});
    const auto when = report::junit_timestamp_now();
    bundle.files.insert(bundle.files.begin(), {"MANIFEST.txt", bundle_manifest(bundle, context, when)});
    std::string top = "pdctl-" + context.cluster.name + "-" + when;
    std::replace(top.begin(), top.end(), ':', '-');
    ops::write_bundle(path, top, bundle.files);
    std::size_t bytes = 0;
    for (const auto& file : bundle.files) bytes += file.content.size();
    fmt::print("bundle {}: {} files, {} KiB before compression (MANIFEST.txt lists them){}\n", path,
               bundle.files.size(), (bytes + 1023) / 1024,
               bundle.missing.empty() ? "" : fmt::format("; {} not collected", bundle.missing.size()));
    if (!bundle.not_running.empty())
        fmt::print("  {} of the units do not run: only the logs they left are in it\n",
                   bundle.not_running.size());
    for (const auto& why : bundle.missing) fmt::print("  not collected: {}\n", redact(why));
    return bundle.code;
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
                     "journal's newest runs to FILE (.tar.gz) for an incident ticket; no ROLE: every unit")
        ->type_name("FILE");
    verbs.add(command, [all](const GlobalOptions& global) { return logs_command(global, *all); });
}

}  // namespace pdctl::cli
