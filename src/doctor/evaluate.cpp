// The live check table and the loop that runs it over every node's answer. Adding a check: a function
// in the area's file (checks.hpp), one line here, a section in docs/doctor.md, a unit test.

#include <fmt/format.h>

#include <algorithm>

#include "checks.hpp"
#include "pdctl/doctor/live_checks.hpp"
#include "text.hpp"

namespace pdctl::doctor {
namespace {

struct LiveCheck {
    std::string_view id;
    std::string_view reference;
    detail::NodeCheck check;
};

const std::vector<LiveCheck>& node_checks() {
    static const std::vector<LiveCheck> checks = {
        {"NET003", "sglang #3467, #958; pd-stack-facts 6.3", detail::check_nic_present},
        {"NET004", "sglang #3467; pd-stack-facts 6.3", detail::check_nic_up},
        {"CTR001", "docs/containers.md", detail::check_container_cli},
        {"CTR002", "docs/containers.md", detail::check_image_present},
        {"GPU001", "", detail::check_gpu_present},
        {"GPU002", "pd-stack-facts 1.2", detail::check_gpu_count},
        {"GPU003", "", detail::check_gpu_idle},
        {"RDMA001", "NCCL_IB_HCA (NCCL env docs); Mooncake transfer engine", detail::check_hca_present},
        {"RDMA002", "NCCL_IB_HCA (NCCL env docs); Mooncake transfer engine", detail::check_hca_active},
        {"RDMA003", "Mooncake #2035 (dmabuf registration)", detail::check_gpudirect},
        {"SYS001", "Mooncake and NCCL troubleshooting (memlock)", detail::check_memlock},
        {"SYS002", "", detail::check_disk_space},
    };
    return checks;
}

lint::Finding& add_node_finding(std::vector<lint::Finding>& out, std::string_view id, const NodeNeeds& needs,
                                std::string message, std::string fix) {
    lint::FindingSink sink(id, "", out);
    auto& finding = sink.add(lint::Severity::Error, "", std::move(message), std::move(fix));
    finding.node = needs.node.name;
    return finding;
}

// NET001/NET002: the node's answer as a whole. Returns the parsed facts, or nullopt when the node's
// other checks cannot run (the finding says why).
std::optional<NodeFacts> node_answer(const NodeNeeds& needs, const NodeProbe& probe,
                                     std::vector<lint::Finding>& out) {
    const auto where = fmt::format("{} ({}, ssh {}@{}:{})", needs.node.name, needs.node.address,
                                   needs.node.ssh.user, needs.node.address, needs.node.ssh.port);
    if (!probe.transport_error.empty()) {
        add_node_finding(
            out, "NET001", needs,
            fmt::format("{} is unreachable: {}; its other checks were skipped", where, probe.transport_error),
            "check that the node is up and sshd answers (`ssh -p PORT USER@ADDRESS true`), and the key, "
            "user and known_hosts entry (docs/ssh.md)");
        return std::nullopt;
    }
    std::string problem;
    if (probe.timed_out)
        problem = "the probe did not finish in time";
    else if (probe.exit_code != 0)
        problem = fmt::format("the probe exited with {}: {}", probe.exit_code,
                              std::string(detail::trim(probe.err.substr(0, 300))));
    auto parsed = parse_probe_output(probe.out);
    if (problem.empty() && !parsed.error.empty()) problem = parsed.error;
    if (!problem.empty()) {
        add_node_finding(
            out, "NET002", needs,
            fmt::format("{} answered, but {}; its other checks were skipped", needs.node.name, problem),
            "run `pdctl -vv doctor` and check the node's /bin/sh and coreutils; a hung nvidia-smi or "
            "container daemon is bounded at 15 s each");
        return std::nullopt;
    }
    return std::move(parsed.facts);
}

}  // namespace

LiveResult evaluate_live(const std::vector<NodeNeeds>& needs, const std::vector<NodeProbe>& probes,
                         const LiveOptions& options) {
    LiveResult result;
    result.nodes = static_cast<int>(needs.size());
    std::vector<NodeFacts> facts(needs.size());
    std::vector<bool> answered(needs.size(), false);
    std::vector<std::string> simulated;
    const auto count = [&](std::size_t before, int checks) {
        // A check with a finding on one node still passed on the others it looked at.
        const auto added = static_cast<int>(result.findings.size() - before);
        result.checks += checks;
        result.checks_without_findings += std::max(0, checks - added);
    };
    for (std::size_t i = 0; i < needs.size() && i < probes.size(); ++i) {
        const auto before = result.findings.size();
        auto answer = node_answer(needs[i], probes[i], result.findings);
        count(before, 1);
        if (!answer) {
            if (!probes[i].transport_error.empty()) ++result.unreachable;
            continue;
        }
        facts[i] = std::move(*answer);
        answered[i] = true;
        const detail::NodeInput input{needs[i], facts[i], options};
        if (!needs[i].sglang_role.empty() && input.simulated()) simulated.push_back(needs[i].node.name);
        for (const auto& check : node_checks()) {
            const auto start = result.findings.size();
            lint::FindingSink sink(check.id, check.reference, result.findings);
            const bool ran = check.check(input, sink);
            for (auto j = start; j < result.findings.size(); ++j)
                result.findings[j].node = needs[i].node.name;
            count(start, ran ? 1 : 0);
        }
        const auto start = result.findings.size();
        lint::FindingSink sink("FILE001", "runbook step 2 (docs/runbook.md)", result.findings);
        const bool ran = detail::check_files(needs[i], probes[i], sink);
        for (auto j = start; j < result.findings.size(); ++j) result.findings[j].node = needs[i].node.name;
        count(start, ran ? 1 : 0);
    }
    detail::CrossNodeInput cross{{}, {}, {}, options};
    for (std::size_t i = 0; i < needs.size(); ++i) {
        if (!answered[i]) continue;
        cross.needs.push_back(&needs[i]);
        cross.facts.push_back(&facts[i]);
        cross.clocks.push_back(&probes[i].clock);
    }
    {
        const auto before = result.findings.size();
        lint::FindingSink sink("CTR003", "docs/containers.md", result.findings);
        count(before, detail::check_image_ids(cross, sink));
    }
    {
        const auto before = result.findings.size();
        lint::FindingSink sink("SYS003", "", result.findings);
        count(before, detail::check_clock_skew(cross, sink));
    }
    if (!simulated.empty()) {
        // The simulated cluster (profiles/local) has no GPUs by design: say so once, as info.
        lint::FindingSink sink("GPU001", "docs/pdsim.md", result.findings);
        auto& finding = sink.add(
            lint::Severity::Info, "",
            fmt::format(
                "{} simulated node{}: pdsim processes without nvidia-smi; GPU and RDMA checks skipped",
                simulated.size(), simulated.size() == 1 ? "" : "s"),
            "nothing to do for the simulated cluster; a real cluster runs sglang, not pdsim");
        finding.node = detail::join(simulated, ",");
    }
    return result;
}

}  // namespace pdctl::doctor
