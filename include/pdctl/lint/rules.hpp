#pragma once
// The static doctor rules: pure checks over the validated Cluster and its Plan, touching no node.
// Each rule is one function in its own file under src/lint/, listed once in the rule table
// (static_rules()); docs/doctor.md documents every ID with its rationale and source.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/lint/finding.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::lint {

// What every rule reads. The Plan carries each unit's final argv (YAML args and EXTRA_ARGS already
// appended), which is what the servers will actually parse; site settings (the management NICs) are
// the cluster's `doctor:`.
struct RuleInput {
    const config::Cluster& cluster;
    const plan::Plan& plan;
};

// Collects one rule's findings and stamps them with the rule's ID and default reference, so a rule
// cannot report under another rule's ID.
class FindingSink {
  public:
    FindingSink(std::string_view id, std::string_view reference, std::vector<Finding>& out)
        : id_(id), reference_(reference), out_(out) {}
    // Adds a finding with this rule's ID and reference; the caller fills in the rest.
    Finding& add(Severity severity, const std::string& role, std::string message, std::string fix);

  private:
    std::string id_;
    std::string reference_;
    std::vector<Finding>& out_;
};

using RuleCheck = void (*)(const RuleInput& input, FindingSink& sink);

struct Rule {
    std::string_view id;
    std::string_view title;  // one line, for docs and --help style listings
    // Its findings' reference: "docs/doctor.md#<id>", then upstream URLs, joined by " · ".
    std::string_view reference;
    RuleCheck check;
};

// Every static rule, in ID order.
const std::vector<Rule>& static_rules();

// The live checks' summary (pdctl doctor without --static; src/doctor/ runs them).
struct LiveSummary {
    int nodes = 0;
    int checks = 0;  // (check, node) pairs evaluated
    int checks_without_findings = 0;
    int unreachable = 0;  // nodes that could not be reached or authenticated
    long long elapsed_ms = 0;
};

// A rule the site acknowledges (`doctor: ignore:`) and what it held back this time.
struct Acknowledged {
    config::AcknowledgedRule rule;
    int findings = 0;  // 0: the rule found nothing, and the entry may be stale
    int errors = 0;    // of those, errors that would have blocked a start
};

struct Report {
    std::vector<Finding> findings;  // static rules in rule order, then live checks by node
    int rules_run = 0;
    int rules_without_findings = 0;
    std::optional<LiveSummary> live;         // absent: only the static rules ran (no node touched)
    std::vector<Acknowledged> acknowledged;  // one per `doctor: ignore:` entry, in file order

    int count(Severity severity) const;
    int errors() const { return count(Severity::Error); }
    int warnings() const { return count(Severity::Warn); }
};

// Every static rule, then acknowledge() with the cluster's `doctor: ignore:`.
Report run_static_rules(const config::Cluster& cluster, const plan::Plan& plan);
// One rule alone, by ID (tests, and future `doctor --rule`); empty when the ID is unknown. Nothing
// is acknowledged: the rule's own findings.
std::vector<Finding> run_rule(std::string_view id, const config::Cluster& cluster, const plan::Plan& plan);
// Moves the findings of every acknowledged rule out of report.findings into report.acknowledged
// (counted, never shown one by one). Again after more findings arrive (the live checks): the counts add.
void acknowledge(Report& report, const std::vector<config::AcknowledgedRule>& rules);

// The rules, one function each (src/lint/<name>.cpp).
void check_expandable_segments(const RuleInput& input, FindingSink& sink);       // PD001
void check_mooncake_version(const RuleInput& input, FindingSink& sink);          // PD002
void check_mooncake_upgrade(const RuleInput& input, FindingSink& sink);          // PD003
void check_socket_ifname_missing(const RuleInput& input, FindingSink& sink);     // PD004
void check_socket_ifname_mismatch(const RuleInput& input, FindingSink& sink);    // PD005
void check_socket_ifname_management(const RuleInput& input, FindingSink& sink);  // PD006
void check_prefill_before_decode(const RuleInput& input, FindingSink& sink);     // PD007
void check_router_bootstrap_port(const RuleInput& input, FindingSink& sink);     // PD008
void check_router_urls(const RuleInput& input, FindingSink& sink);               // PD009
void check_host_loopback(const RuleInput& input, FindingSink& sink);             // PD010
void check_tp_size(const RuleInput& input, FindingSink& sink);                   // PD011
void check_port_clash(const RuleInput& input, FindingSink& sink);                // PD012
void check_shared_bootstrap_port(const RuleInput& input, FindingSink& sink);     // PD013
void check_assumptions(const RuleInput& input, FindingSink& sink);               // PD014
void check_management_address(const RuleInput& input, FindingSink& sink);        // PD015
void check_tp_transfer(const RuleInput& input, FindingSink& sink);               // PD016
void check_stack_ptrace(const RuleInput& input, FindingSink& sink);              // PD017
void check_unused_keys(const RuleInput& input, FindingSink& sink);               // PD018
void check_flag_given_twice(const RuleInput& input, FindingSink& sink);          // PD019
void check_mooncake_master_flags(const RuleInput& input, FindingSink& sink);     // PD020
void check_router_worker_removal(const RuleInput& input, FindingSink& sink);     // PD021
void check_metrics_disabled(const RuleInput& input, FindingSink& sink);          // PD022

}  // namespace pdctl::lint
