// pdctl doctor [--static] (ops/doctor.hpp), with --junit. The same static rules gate start/restart:
// doctor_gate.cpp.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <memory>

#include "engine_verb.hpp"
#include "pdctl/ops/doctor.hpp"
#include "pdctl/ops/node_selection.hpp"
#include "pdctl/report/doctor_report_view.hpp"
#include "pdctl/report/transport_view.hpp"
#include "pdctl/util/durations.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct DoctorOptions {
    bool static_only = false;  // --static: no node touched
    std::string junit;
    ops::NodeSelection selection;  // --role / --group / --node: the live checks' nodes
};

ExitCode doctor_command(const GlobalOptions& global, const DoctorOptions& options) {
    check_junit_path(options.junit);
    const auto began = util::SteadyClock::now();
    const auto timestamp = report::junit_timestamp_now();
    auto context =
        load_context(global, options.static_only ? Purpose::kPlanOnly : Purpose::kOnNodes, "doctor");
    const auto nodes = ops::selected_nodes(context, options.selection);
    const auto answer = ops::run_doctor(context, options.static_only, nodes);
    const auto& report = answer.report;
    // Checks never put secret values in findings; the redactor is the second line of defence.
    // How each node is reached comes first: an unreachable node's finding reads differently over
    // OpenSSH (a jump host, a certificate) than over libssh2.
    const auto transports = ops::transport_choices(context);
    print_result(
        global, context.redactor,
        [&] {
            auto doc = report::doctor_report_json(report);
            if (!transports.empty()) doc["ssh_transports"] = report::transports_to_json(transports);
            return doc;
        },
        [&] {
            report::DoctorReportOptions shown;
            shown.fold = global.verbosity == 0;  // -v: every finding on its own
            return (transports.empty() ? "" : report::render_transports_text(transports) + "\n") +
                   report::render_doctor_report(report, shown);
        });
    std::vector<std::string> checked;
    for (const auto& node : context.cluster.nodes)
        if (!nodes || std::find(nodes->begin(), nodes->end(), node.name) != nodes->end())
            checked.push_back(node.name);
    write_junit_file(options.junit,
                     {report::doctor_to_junit(report, checked, timestamp, util::seconds_since(began))},
                     context.redactor);
    return ops::doctor_exit_code(answer);
}

}  // namespace

void add_doctor_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<DoctorOptions>();
    auto* command = app.add_subcommand("doctor",
                                       "check the config and plan against known PD pitfalls, then every node "
                                       "(GPUs, RDMA, NICs, images, ...)");
    command->add_flag("--static", options->static_only,
                      "only the static rules of the config and plan (touches no node; what start runs)");
    add_junit_flag(*command, options->junit,
                   "one test case per static rule, then one per node for the live checks (and one for the "
                   "checks across nodes), each error a failure");
    add_scope_flags(*command, options->selection.scope);
    command->add_option("--node", options->selection.nodes, "live checks on this node only (repeatable)")
        ->type_name("NODE")
        ->allow_extra_args(false);
    verbs.add(command, [options](const GlobalOptions& global) { return doctor_command(global, *options); });
}

}  // namespace pdctl::cli
