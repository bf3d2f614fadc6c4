// `doctor: ignore:`: the findings of a rule the site has checked are held back and counted, so the
// doctor shows the rule once with its reason, and a start is not blocked by what the site accepted.

#include <algorithm>

#include "pdctl/lint/rules.hpp"

namespace pdctl::lint {

void acknowledge(Report& report, const std::vector<config::AcknowledgedRule>& rules) {
    for (const auto& rule : rules) {
        auto entry = std::find_if(report.acknowledged.begin(), report.acknowledged.end(),
                                  [&](const Acknowledged& held) { return held.rule.rule == rule.rule; });
        if (entry == report.acknowledged.end())
            entry = report.acknowledged.insert(report.acknowledged.end(), Acknowledged{rule, 0, 0});
        std::erase_if(report.findings, [&](const Finding& finding) {
            if (finding.id != rule.rule) return false;
            ++entry->findings;
            if (finding.severity == Severity::Error) ++entry->errors;
            return true;
        });
    }
}

}  // namespace pdctl::lint
