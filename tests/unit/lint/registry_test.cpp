// The rule table: every rule's reference is something an operator can open (its section of
// docs/doctor.md, then upstream URLs), every rule has its section, and every section its rule.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pdctl/lint/rules.hpp"
#include "unit/support/doctor_doc.hpp"

namespace pdctl::lint {
namespace {

TEST(LintRegistry, EveryReferenceIsTheRulesSectionThenUpstreamUrls) {
    const auto doc = pdctl::testing::read_doctor_doc();
    for (const auto& rule : static_rules())
        EXPECT_EQ(pdctl::testing::reference_problem(rule.id, rule.reference, doc), "")
            << rule.id << ": " << rule.reference;
}

TEST(LintRegistry, EveryRuleHasASectionAndEverySectionARule) {
    const auto doc = pdctl::testing::read_doctor_doc();
    std::set<std::string> rules;
    for (const auto& rule : static_rules()) EXPECT_TRUE(rules.insert(std::string(rule.id)).second) << rule.id;
    std::set<std::string> sections;
    for (const auto& id : doc.id_headings)
        if (id.starts_with("PD")) sections.insert(id);
    EXPECT_EQ(rules, sections);
}

TEST(LintRegistry, TheSinkStampsTheRulesIdAndReference) {
    std::vector<Finding> out;
    FindingSink sink("PD099", "docs/doctor.md#pd099", out);
    sink.add(Severity::Warn, "prefill", "message", "fix");
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].id, "PD099");
    EXPECT_EQ(out[0].reference, "docs/doctor.md#pd099");
}

}  // namespace
}  // namespace pdctl::lint
