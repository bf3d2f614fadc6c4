#include "pdctl/doctor/preflight.hpp"

#include <algorithm>
#include <set>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/lint/unit_ports.hpp"

namespace pdctl::doctor {
namespace {

// The live checks a start cannot go on without. GPU003 (busy GPUs) and CTR002 (a missing image) are
// warnings in `doctor`, where the cluster may be running; before a start they are errors: the new
// rank would die of OOM, or the start would stall on a pull nobody asked for.
const std::set<std::string, std::less<>> kPreflightChecks = {
    "NET001", "NET002",  "CTR001",  "CTR002",  "CTR003",  "GPU001", "GPU002",
    "GPU003", "RDMA001", "RDMA002", "PORT001", "FILE002", "FILE003"};

plan::Plan only_stages(const plan::Plan& plan, const std::vector<std::string>& roles) {
    plan::Plan sub = plan;
    std::erase_if(sub.stages, [&](const plan::Stage& stage) {
        return std::find(roles.begin(), roles.end(), stage.role) == roles.end();
    });
    return sub;
}

void add_ports(const config::Cluster& cluster, const plan::Plan& plan, std::vector<NodeNeeds>& needs) {
    for (const auto& stage : plan.stages) {
        const auto* role = cluster.find_role(stage.role);
        if (!role) continue;
        for (const auto& unit : stage.units) {
            auto node = std::find_if(needs.begin(), needs.end(),
                                     [&](const NodeNeeds& n) { return n.node.name == unit.node; });
            if (node == needs.end()) continue;
            for (const auto& port : lint::unit_ports(*role, stage, unit))
                node->ports.push_back(
                    {port.host, port.port,
                     stage.role + " rank " + std::to_string(unit.rank) + " (" + port.what + ")"});
        }
    }
}

}  // namespace

int PreflightResult::errors() const {
    return static_cast<int>(std::count_if(findings.begin(), findings.end(), [](const lint::Finding& f) {
        return f.severity == lint::Severity::Error;
    }));
}

std::vector<lint::Finding> preflight_findings(std::vector<lint::Finding> live) {
    std::vector<lint::Finding> kept;
    for (auto& finding : live) {
        if (!kPreflightChecks.count(finding.id)) continue;
        if ((finding.id == "GPU003" || finding.id == "CTR002") && finding.severity == lint::Severity::Warn)
            finding.severity = lint::Severity::Error;
        // FILE003 stops nothing, but a start is when it matters: said as a note of the preflight.
        if (finding.severity == lint::Severity::Warn && finding.id != "FILE003") continue;
        kept.push_back(std::move(finding));
    }
    return kept;
}

PreflightResult run_preflight(const config::Cluster& cluster, const plan::Plan& plan,
                              exec::Executor& executor, const std::vector<std::string>& roles) {
    const auto sub = only_stages(plan, roles);
    auto needs = node_needs(cluster, sub);
    std::erase_if(needs, [](const NodeNeeds& n) { return n.roles.empty(); });
    for (auto& node : needs) {
        node.files.clear();        // push's business (FILE001), not a start's
        node.stack_tools.clear();  // doctor's (SYS004): `pdctl stack` is not needed to start
    }
    add_ports(cluster, sub, needs);
    LiveOptions options;
    options.busy_gpu_mib = 1024;
    const auto probes = probe_nodes(needs, executor, options);
    PreflightResult result;
    result.nodes = static_cast<int>(needs.size());
    result.findings = preflight_findings(evaluate_live(needs, probes, options).findings);
    return result;
}

}  // namespace pdctl::doctor
