// The live check table and the loop that runs it over every node's answer. Adding a check: a function
// in the area's file (checks.hpp), its ID and reference in live_checks(), a section in docs/doctor.md,
// a unit test.

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "checks.hpp"
#include "pdctl/doctor/live_checks.hpp"
#include "text.hpp"

namespace pdctl::doctor {

const std::vector<LiveCheckInfo>& live_checks() {
    // Each reference is the check's section in docs/doctor.md, then the upstream sources an operator can
    // open, joined by " · " (tests/unit/doctor/evaluate_test.cpp keeps them followable).
    static const std::vector<LiveCheckInfo> checks = {
        {"NET001", "docs/doctor.md#net001"},
        {"NET002", "docs/doctor.md#net002"},
        {"NET003",
         "docs/doctor.md#net003 · https://github.com/sgl-project/sglang/issues/3467 · "
         "https://github.com/sgl-project/sglang/issues/3226"},
        {"NET004", "docs/doctor.md#net004 · https://github.com/sgl-project/sglang/issues/3467"},
        {"NET005", "docs/doctor.md#net005 · https://github.com/sgl-project/sglang/pull/21704"},
        {"CTR001", "docs/doctor.md#ctr001"},
        {"CTR002", "docs/doctor.md#ctr002"},
        {"CTR003", "docs/doctor.md#ctr003"},
        {"GPU001", "docs/doctor.md#gpu001"},
        {"GPU002", "docs/doctor.md#gpu002"},
        {"GPU003", "docs/doctor.md#gpu003"},
        {"RDMA001",
         "docs/doctor.md#rdma001 · https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"},
        {"RDMA002",
         "docs/doctor.md#rdma002 · "
         "https://github.com/kvcache-ai/Mooncake/blob/main/docs/source/troubleshooting/troubleshooting.md"},
        {"RDMA003", "docs/doctor.md#rdma003 · https://github.com/kvcache-ai/Mooncake/issues/351"},
        {"SYS001",
         "docs/doctor.md#sys001 · "
         "https://github.com/kvcache-ai/Mooncake/blob/main/docs/source/troubleshooting/troubleshooting.md"},
        {"SYS002", "docs/doctor.md#sys002"},
        {"SYS003", "docs/doctor.md#sys003"},
        {"SYS004", "docs/doctor.md#sys004 · https://github.com/sgl-project/sglang/issues/33549"},
        {"FILE001", "docs/doctor.md#file001"},
        {"FILE002", "docs/doctor.md#file002"},
        {"FILE003", "docs/doctor.md#file003"},
        {"PORT001", "docs/doctor.md#port001"},
        {"PAIR001", "docs/doctor.md#pair001"},
        {"PAIR002",
         "docs/doctor.md#pair002 · https://github.com/llm-d/llm-d/blob/main/docs/operations-sglang.md"},
        {"PAIR003",
         "docs/doctor.md#pair003 · https://github.com/llm-d/llm-d/blob/main/docs/operations-sglang.md"},
        {"PAIR004", "docs/doctor.md#pair004"},
        {"PAIR005",
         "docs/doctor.md#pair005 · https://github.com/sgl-project/sglang/issues/15674 · "
         "https://github.com/llm-d/llm-d/issues/2433"},
        {"PAIR006", "docs/doctor.md#pair006"},
        {"PAIR007", "docs/doctor.md#pair007"},
    };
    return checks;
}

namespace {

std::string_view reference_of(std::string_view id) {
    for (const auto& check : live_checks())
        if (check.id == id) return check.reference;
    throw std::logic_error("live check " + std::string(id) + " is missing from live_checks()");
}

// A sink that stamps the check's ID and its reference from live_checks().
lint::FindingSink sink_for(std::string_view id, std::vector<lint::Finding>& out) {
    return lint::FindingSink(id, reference_of(id), out);
}

struct NodeCheck {
    std::string_view id;
    detail::NodeCheck check;
};

const std::vector<NodeCheck>& node_checks() {
    static const std::vector<NodeCheck> checks = {
        {"NET003", detail::check_nic_present},
        {"NET004", detail::check_nic_up},
        {"NET005", detail::check_compute_address_on_nic},
        {"CTR001", detail::check_container_cli},
        {"CTR002", detail::check_image_present},
        {"GPU001", detail::check_gpu_present},
        {"GPU002", detail::check_gpu_count},
        {"GPU003", detail::check_gpu_idle},
        {"RDMA001", detail::check_hca_present},
        {"RDMA002", detail::check_hca_active},
        {"RDMA003", detail::check_gpudirect},
        {"SYS001", detail::check_memlock},
        {"SYS002", detail::check_disk_space},
        {"SYS004", detail::check_stack_tool},
        {"PORT001", detail::check_ports_free},
    };
    return checks;
}

lint::Finding& add_node_finding(std::vector<lint::Finding>& out, std::string_view id, const NodeNeeds& needs,
                                std::string message, std::string fix) {
    auto sink = sink_for(id, out);
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
        problem = probe.err.find_first_not_of(" \t\r\n") == std::string::npos
                      ? fmt::format("the probe exited with {} and printed no error", probe.exit_code)
                      : fmt::format("the probe exited with {}: {}", probe.exit_code,
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
            auto sink = sink_for(check.id, result.findings);
            const bool ran = check.check(input, sink);
            for (auto j = start; j < result.findings.size(); ++j)
                result.findings[j].node = needs[i].node.name;
            count(start, ran ? 1 : 0);
        }
        const auto start = result.findings.size();
        auto sink = sink_for("FILE001", result.findings);
        const bool ran = detail::check_files(needs[i], probes[i], sink);
        for (auto j = start; j < result.findings.size(); ++j) result.findings[j].node = needs[i].node.name;
        count(start, ran ? 1 : 0);
    }
    detail::CrossNodeInput cross{{}, {}, {}, options, {}};
    for (std::size_t i = 0; i < needs.size(); ++i) {
        if (!answered[i]) continue;
        cross.needs.push_back(&needs[i]);
        cross.facts.push_back(&facts[i]);
        cross.clocks.push_back(&probes[i].clock);
        cross.probes.push_back(&probes[i]);
    }
    {
        const auto before = result.findings.size();
        auto sink = sink_for("CTR003", result.findings);
        count(before, detail::check_image_ids(cross, sink));
    }
    {
        const auto before = result.findings.size();
        auto sink = sink_for("SYS003", result.findings);
        count(before, detail::check_clock_skew(cross, sink));
    }
    {
        const auto before = result.findings.size();
        auto sink = sink_for("FILE002", result.findings);
        count(before, detail::check_model_files(cross, sink));
    }
    {
        const auto before = result.findings.size();
        auto sink = sink_for("FILE003", result.findings);
        count(before, detail::check_model_memory(cross, sink));
    }
    if (!simulated.empty()) {
        // The simulated cluster (profiles/local) has no GPUs by design: say so once, as info.
        auto sink = sink_for("GPU001", result.findings);
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
