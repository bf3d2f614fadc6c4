#include "pdctl/ops/doctor.hpp"

#include <algorithm>
#include <chrono>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/doctor/worker_consistency.hpp"
#include "pdctl/ops/worker_infos.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::ops {

lint::Report static_findings(const Deployment& deployment) {
    return lint::run_static_rules(deployment.cluster, deployment.plan);
}

DoctorAnswer run_doctor(const Deployment& deployment, bool static_only,
                        const std::optional<std::vector<std::string>>& nodes) {
    DoctorAnswer answer{static_findings(deployment), 0};
    auto& report = answer.report;
    answer.static_errors = report.errors();
    if (static_only) return answer;
    const auto started = util::SteadyClock::now();
    auto cluster = deployment.cluster;
    auto plan = deployment.plan;
    if (nodes) {
        const auto unselected = [&](const std::string& name) {
            return std::find(nodes->begin(), nodes->end(), name) == nodes->end();
        };
        std::erase_if(cluster.nodes, [&](const config::Node& node) { return unselected(node.name); });
        for (auto& stage : plan.stages)
            std::erase_if(stage.units, [&](const plan::Unit& unit) { return unselected(unit.node); });
    }
    auto live = doctor::run_live_checks(cluster, plan, *deployment.executor);
    // What the running workers say of themselves must agree across every prefill-decode pairing; read
    // from all of them whatever the node selection, since a pairing spans groups.
    auto pairing = doctor::check_worker_consistency(read_worker_infos(deployment));
    const auto elapsed = util::milliseconds_since(started);
    for (auto& finding : live.findings) report.findings.push_back(std::move(finding));
    for (auto& finding : pairing) report.findings.push_back(std::move(finding));
    lint::acknowledge(report, deployment.cluster.doctor.ignore);
    report.live = lint::LiveSummary{live.nodes, live.checks, live.checks_without_findings, live.unreachable,
                                    elapsed.count()};
    return answer;
}

ExitCode doctor_exit_code(const DoctorAnswer& answer) {
    const auto& report = answer.report;
    if (answer.static_errors > 0) return ExitCode::kUsage;
    if (report.live && report.live->unreachable > 0) return ExitCode::kUnreachable;
    if (report.errors() > 0) return ExitCode::kNodeCheckFailed;
    return ExitCode::kOk;
}

}  // namespace pdctl::ops
