#include "pdctl/doctor/rule_ids.hpp"

#include <algorithm>

#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/lint/rules.hpp"

namespace pdctl::doctor {

std::vector<std::string> rule_ids() {
    std::vector<std::string> ids;
    for (const auto& rule : lint::static_rules()) ids.emplace_back(rule.id);
    for (const auto& check : live_checks()) ids.emplace_back(check.id);
    return ids;
}

std::vector<config::Diagnostic> check_acknowledged_rules(const config::Cluster& cluster) {
    const auto ids = rule_ids();
    std::vector<config::Diagnostic> unknown;
    for (std::size_t i = 0; i < cluster.doctor.ignore.size(); ++i) {
        const auto& ack = cluster.doctor.ignore[i];
        if (std::find(ids.begin(), ids.end(), ack.rule) != ids.end()) continue;
        std::string hint = config::did_you_mean(ack.rule, ids);
        if (hint.empty()) hint = "docs/doctor.md lists every rule and check";
        unknown.push_back({ack.where, "doctor.ignore[" + std::to_string(i) + "].rule",
                           "no doctor rule or check is called " + ack.rule, hint});
    }
    return unknown;
}

}  // namespace pdctl::doctor
