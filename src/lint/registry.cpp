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
    // Each reference is the rule's section in docs/doctor.md, then the upstream sources an operator can
    // open, joined by " · " (tests/unit/lint/registry_test.cpp keeps them followable).
    static const std::vector<Rule> rules = {
        {"PD001", "PYTORCH_CUDA_ALLOC_CONF enables expandable_segments in a prefill/decode role",
         "docs/doctor.md#pd001 · https://github.com/kvcache-ai/Mooncake/issues/2511",
         check_expandable_segments},
        {"PD002", "BOOTSTRAP installs a Mooncake older than 0.3.12.post1",
         "docs/doctor.md#pd002 · https://github.com/kvcache-ai/Mooncake/pull/2035", check_mooncake_version},
        {"PD003", "an sglang container role does not upgrade Mooncake in BOOTSTRAP",
         "docs/doctor.md#pd003 · https://github.com/kvcache-ai/Mooncake/pull/2035", check_mooncake_upgrade},
        {"PD004", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME missing on a multi-node sglang role",
         "docs/doctor.md#pd004 · https://github.com/sgl-project/sglang/issues/3467 · "
         "https://github.com/sgl-project/sglang/issues/3226",
         check_socket_ifname_missing},
        {"PD005", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME differ between the two or between roles",
         "docs/doctor.md#pd005 · https://github.com/sgl-project/sglang/issues/3467",
         check_socket_ifname_mismatch},
        {"PD006", "NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME on the management network", "docs/doctor.md#pd006",
         check_socket_ifname_management},
        {"PD007", "a decode role does not start after its prefill roles", "docs/doctor.md#pd007",
         check_prefill_before_decode},
        {"PD008", "the router's bootstrap port for a prefill differs from that prefill's",
         "docs/doctor.md#pd008 · https://github.com/sgl-project/sglang/pull/11747",
         check_router_bootstrap_port},
        {"PD009", "the router is given a loopback or non-rank-0 worker URL",
         "docs/doctor.md#pd009 · https://github.com/sgl-project/sglang/pull/11747 · "
         "https://github.com/sgl-project/sglang/issues/6413",
         check_router_urls},
        {"PD010", "--host is a loopback address on a multi-node sglang group",
         "docs/doctor.md#pd010 · https://github.com/sgl-project/sglang/issues/10001", check_host_loopback},
        {"PD011", "--tp-size does not match nodes x gpus_per_node",
         "docs/doctor.md#pd011 · "
         "https://github.com/sgl-project/sglang/blob/main/docs/docs/advanced_features/pd_disaggregation.mdx",
         check_tp_size},
        {"PD012", "two listeners on one host share a port", "docs/doctor.md#pd012", check_port_clash},
        {"PD013", "two prefills on one host share a bootstrap port",
         "docs/doctor.md#pd013 · "
         "https://github.com/kvcache-ai/Mooncake/blob/main/docs/source/deployment/integrations/sglang/"
         "pd-disaggregation.md",
         check_shared_bootstrap_port},
        {"PD014", "a value the config marks as a site-specific assumption", "docs/doctor.md#pd014",
         check_assumptions},
        {"PD015", "a program would advertise a node's management address instead of its compute address",
         "docs/doctor.md#pd015 · https://github.com/sgl-project/sglang/pull/21704", check_management_address},
        {"PD016", "a router pairs prefill and decode groups of different TP sizes without the staging buffer",
         "docs/doctor.md#pd016 · https://github.com/llm-d/llm-d/issues/2433", check_tp_transfer},
        {"PD017", "an sglang container role may not ptrace, so `pdctl stack` cannot dump it",
         "docs/doctor.md#pd017 · https://github.com/sgl-project/sglang/issues/33549", check_stack_ptrace},
        {"PD018", "a config.env or profile key that nothing reads", "docs/doctor.md#pd018",
         check_unused_keys},
        {"PD019", "a flag pdctl sets is given again in args or EXTRA_ARGS", "docs/doctor.md#pd019",
         check_flag_given_twice},
        {"PD020", "a mooncake_master flag the master's Mooncake release does not have, or has deprecated",
         "docs/doctor.md#pd020 · "
         "https://github.com/kvcache-ai/Mooncake/blob/main/mooncake-store/src/master.cpp",
         check_mooncake_master_flags},
        {"PD021", "the router removes unhealthy workers itself, which pdctl heal re-adds",
         "docs/doctor.md#pd021 · "
         "https://github.com/lightseekorg/smg/blob/main/docs/concepts/reliability/health-checks.md",
         check_router_worker_removal},
        {"PD022", "an sglang role without --enable-metrics: its /metrics answers 404",
         "docs/doctor.md#pd022 · "
         "https://github.com/sgl-project/sglang/blob/main/docs/references/production_metrics.md",
         check_metrics_disabled},
    };
    return rules;
}

int Report::count(Severity severity) const {
    return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                          [&](const Finding& f) { return f.severity == severity; }));
}

Report run_static_rules(const config::Cluster& cluster, const plan::Plan& plan) {
    const RuleInput input{cluster, plan};
    Report report;
    for (const auto& rule : static_rules()) {
        const auto before = report.findings.size();
        FindingSink sink(rule.id, rule.reference, report.findings);
        rule.check(input, sink);
        ++report.rules_run;
        if (report.findings.size() == before) ++report.rules_without_findings;
    }
    acknowledge(report, cluster.doctor.ignore);
    return report;
}

std::vector<Finding> run_rule(std::string_view id, const config::Cluster& cluster, const plan::Plan& plan) {
    std::vector<Finding> findings;
    for (const auto& rule : static_rules()) {
        if (rule.id != id) continue;
        FindingSink sink(rule.id, rule.reference, findings);
        rule.check(RuleInput{cluster, plan}, sink);
    }
    return findings;
}

}  // namespace pdctl::lint
