// The rule table and the loop that runs it. Adding a rule: write its function in its own file,
// declare it in rules.hpp, add one line here and one section to docs/doctor.md.

#include <algorithm>

#include "pdctl/lint/rules.hpp"

namespace pdctl::lint {

Finding& FindingSink::add(Severity severity, const std::string& role, std::string message, std::string fix) {
    Finding finding;
    finding.id = id_;
    finding.severity = severity;
    finding.role = role;
    finding.message = std::move(message);
    finding.fix = std::move(fix);
    finding.reference = reference_;
    out_.push_back(std::move(finding));
    return out_.back();
}

const std::vector<Rule>& static_rules() {
    static const std::vector<Rule> rules = {
        {"PD001", "PYTORCH_CUDA_ALLOC_CONF enables expandable_segments in a prefill/decode role",
         "Mooncake #2511; runbook rule 1", check_expandable_segments},
        {"PD002", "BOOTSTRAP installs a Mooncake older than 0.3.12.post1", "Mooncake #2035; runbook rule 3",
         check_mooncake_version},
        {"PD003", "an sglang container role does not upgrade Mooncake in BOOTSTRAP",
         "Mooncake #2035; runbook rule 3", check_mooncake_upgrade},
        {"PD004", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME missing on a multi-node sglang role",
         "sglang #3467, #958, #3226; pd-stack-facts 7.9", check_socket_ifname_missing},
        {"PD005", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME differ between the two or between roles",
         "Kimi-K3 cookbook; sglang #3467; pd-stack-facts 6.3", check_socket_ifname_mismatch},
        {"PD006", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME on the management network", "runbook rule 4",
         check_socket_ifname_management},
        {"PD007", "a decode role does not start after its prefill roles", "runbook rule 2",
         check_prefill_before_decode},
        {"PD008", "the router's bootstrap port for a prefill differs from that prefill's",
         "sglang #11747; pd-stack-facts 3.2, 7.2", check_router_bootstrap_port},
        {"PD009", "the router is given a loopback or non-rank-0 worker URL",
         "sglang #11747, #6413; pd-stack-facts 1.3, 3.4", check_router_urls},
        {"PD010", "--host is a loopback address on a multi-node sglang group",
         "sglang #10001; pd-stack-facts 1.4, 7.2", check_host_loopback},
        {"PD011", "--tp-size does not match nodes x gpus_per_node", "pd-stack-facts 1.2", check_tp_size},
        {"PD012", "two listeners on one host share a port", "pd-stack-facts 7.10", check_port_clash},
        {"PD013", "two prefills on one host share a bootstrap port",
         "Mooncake pd-disaggregation doc; pd-stack-facts 1.4, 7.10", check_shared_bootstrap_port},
    };
    return rules;
}

int Report::count(Severity severity) const {
    return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                          [&](const Finding& f) { return f.severity == severity; }));
}

Report run_static_rules(const config::Cluster& cluster, const plan::Plan& plan, const Options& options) {
    const RuleInput input{cluster, plan, options};
    Report report;
    for (const auto& rule : static_rules()) {
        const auto before = report.findings.size();
        FindingSink sink(rule.id, rule.reference, report.findings);
        rule.check(input, sink);
        ++report.rules_run;
        if (report.findings.size() == before) ++report.rules_without_findings;
    }
    return report;
}

std::vector<Finding> run_rule(std::string_view id, const config::Cluster& cluster, const plan::Plan& plan,
                              const Options& options) {
    std::vector<Finding> findings;
    for (const auto& rule : static_rules()) {
        if (rule.id != id) continue;
        FindingSink sink(rule.id, rule.reference, findings);
        rule.check(RuleInput{cluster, plan, options}, sink);
    }
    return findings;
}

}  // namespace pdctl::lint
