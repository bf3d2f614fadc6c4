#include "pdctl/doctor/slurm_preflight.hpp"

#include <algorithm>

#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/slurm_job.hpp"

namespace pdctl::doctor {
namespace {

lint::Finding slurm_finding(std::string node, std::string message, std::string fix) {
    lint::Finding finding;
    finding.id = "SLURM001";
    finding.node = std::move(node);
    finding.message = std::move(message);
    finding.fix = std::move(fix);
    finding.reference = "docs/slurm.md#preflight";
    return finding;
}

}  // namespace

PreflightResult run_slurm_preflight(const plan::Plan& plan, exec::Executor& executor,
                                    const std::vector<std::string>& roles) {
    PreflightResult result;
    std::vector<std::string> nodes;
    for (const auto& role : roles)
        if (const auto* stage = plan.find_stage(role))
            for (const auto& unit : stage->units)
                if (std::find(nodes.begin(), nodes.end(), unit.node) == nodes.end())
                    nodes.push_back(unit.node);
    result.nodes = static_cast<int>(nodes.size());
    if (nodes.empty()) return result;
    const auto* here = &plan.nodes.front();  // the executor runs it on the submitting machine
    const auto answer = executor.run(*here, runtime::slurm_node_query(nodes));
    if (!answer.ok()) {
        result.findings.push_back(slurm_finding(
            "", "sinfo failed (" + exec::failure_reason(answer) + "): the nodes' SLURM states are unknown",
            "check that slurmctld answers from this machine (`sinfo`), or start with --skip-preflight"));
        return result;
    }
    const auto problems = runtime::slurm_node_problems(nodes, runtime::parse_slurm_node_states(answer.out));
    for (const auto& problem : problems) {
        const auto colon = problem.find(':');
        result.findings.push_back(
            slurm_finding(problem.substr(0, colon), problem,
                          "`scontrol update nodename=" + problem.substr(0, colon) +
                              " state=resume` once it is fit, or take it out of the config"));
    }
    return result;
}

}  // namespace pdctl::doctor
