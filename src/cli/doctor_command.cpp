// pdctl doctor: the static rules of lint/ over the loaded config and plan, then (unless --static) the
// live checks of doctor/ on every node. The same static rules gate start/restart: doctor_gate.cpp.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "engine_verb.hpp"
#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/lint/rules.hpp"
#include "pdctl/report/doctor_report_view.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct DoctorOptions {
    bool static_only = false;  // --static: no node touched
    std::string junit;
};

// docs/exit-codes.md: a config error first (the nodes are checked against a config that must change
// anyway), then an unreachable node, then an error found on a node.
ExitCode doctor_exit_code(const lint::Report& report, int static_errors) {
    if (static_errors > 0) return ExitCode::kUsage;
    if (report.live && report.live->unreachable > 0) return ExitCode::kUnreachable;
    if (report.errors() > 0) return ExitCode::kNodeCheckFailed;
    return ExitCode::kOk;
}

ExitCode doctor_command(const GlobalOptions& global, const DoctorOptions& options) {
    check_junit_path(options.junit);
    const auto began = std::chrono::steady_clock::now();
    const auto timestamp = report::junit_timestamp_now();
    auto context =
        load_context(global, options.static_only ? Purpose::kPlanOnly : Purpose::kOnNodes, "doctor");
    auto report = lint::run_static_rules(context.cluster, context.plan);
    const int static_errors = report.errors();
    if (!options.static_only) {
        const auto started = std::chrono::steady_clock::now();
        auto live = doctor::run_live_checks(context.cluster, context.plan, *context.executor);
        const auto elapsed = std::chrono::steady_clock::now() - started;
        for (auto& finding : live.findings) report.findings.push_back(std::move(finding));
        report.live =
            lint::LiveSummary{live.nodes, live.checks, live.checks_without_findings, live.unreachable,
                              std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()};
    }
    // Checks never put secret values in findings; the redactor is the second line of defence.
    // How each node is reached comes first: an unreachable node's finding reads differently over
    // OpenSSH (a jump host, a certificate) than over libssh2.
    const auto transports = transport_choices(context);
    std::string text;
    if (global.json) {
        auto doc = report::doctor_report_json(report);
        if (!transports.empty()) doc["ssh_transports"] = report::transports_to_json(transports);
        text = doc.dump(2) + "\n";
    } else {
        text = (transports.empty() ? "" : report::render_transports_text(transports) + "\n") +
               report::render_doctor_report(report);
    }
    fmt::print("{}", context.redactor.redact(text));
    std::vector<std::string> nodes;
    for (const auto& node : context.cluster.nodes) nodes.push_back(node.name);
    write_junit_file(options.junit,
                     {report::doctor_to_junit(
                         report, nodes, timestamp,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count())},
                     context.redactor);
    return doctor_exit_code(report, static_errors);
}

}  // namespace

void add_doctor_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<DoctorOptions>();
    auto* command = app.add_subcommand("doctor",
                                       "check the config and plan against known PD pitfalls, then every node "
                                       "(GPUs, RDMA, NICs, images, ...)");
    command->add_flag("--static", options->static_only,
                      "only the static rules of the config and plan (touches no node; what start runs)");
    add_junit_flag(*command, options->junit);
    verbs.add(command, [options](const GlobalOptions& global) { return doctor_command(global, *options); });
}

}  // namespace pdctl::cli
