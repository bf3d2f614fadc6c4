// `doctor: ignore:`: an acknowledged rule's findings are held back and counted, once, with the
// site's reason; the other rules are untouched, and run_rule still shows the rule's own findings.
#include "lint_test_util.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::lint::testing {
namespace {

config::Cluster kimi3() {
    return config::load_cluster(
        std::string(pdctl::testing::source_dir()) + "/profiles/kimi3-pro6000-pd/pdctl.yaml",
        config::DiskFileSource());
}

config::AcknowledgedRule ack(const std::string& rule, const std::string& reason) {
    return {rule, reason, {"/c/pdctl.yaml", 30, 13}};
}

TEST(LintAcknowledge, TheShippedProfilesTenAssumptionsBecomeOneAcknowledgement) {
    auto cluster = kimi3();
    cluster.doctor.ignore = {ack("PD014", "checked with the site team")};
    const auto report = run_static_rules(cluster, plan::build_plan(cluster));
    EXPECT_TRUE(report.findings.empty());
    EXPECT_EQ(report.warnings(), 0);
    ASSERT_EQ(report.acknowledged.size(), 1u);
    EXPECT_EQ(report.acknowledged[0].rule.rule, "PD014");
    EXPECT_EQ(report.acknowledged[0].rule.reason, "checked with the site team");
    EXPECT_EQ(report.acknowledged[0].findings, 10);
    EXPECT_EQ(report.acknowledged[0].errors, 0);
    // The rule itself still finds them: acknowledging hides nothing from `run_rule`.
    EXPECT_EQ(run_rule("PD014", cluster, plan::build_plan(cluster)).size(), 10u);
}

TEST(LintAcknowledge, AnAcknowledgedErrorNoLongerCountsAndIsCountedAsOne) {
    auto cluster = kimi3();
    cluster.doctor.management_interfaces = {"bond1"};  // makes PD006 an error on every sglang role
    auto report = run_static_rules(cluster, plan::build_plan(cluster));
    ASSERT_GT(report.errors(), 0);
    const int pd006 = static_cast<int>(with_id(report, "PD006").size());
    cluster.doctor.ignore = {ack("PD006", "bond1 carries both networks here")};
    report = run_static_rules(cluster, plan::build_plan(cluster));
    EXPECT_EQ(report.errors(), 0);
    EXPECT_EQ(report.acknowledged[0].findings, pd006);
    EXPECT_EQ(report.acknowledged[0].errors, pd006);
    EXPECT_EQ(with_id(report, "PD014").size(), 10u) << "other rules untouched";
}

TEST(LintAcknowledge, ARuleThatFoundNothingIsStillListedSoAStaleEntryShows) {
    auto cluster = kimi3();
    cluster.doctor.ignore = {ack("PD001", "stale")};
    const auto report = run_static_rules(cluster, plan::build_plan(cluster));
    ASSERT_EQ(report.acknowledged.size(), 1u);
    EXPECT_EQ(report.acknowledged[0].findings, 0);
}

TEST(LintAcknowledge, LaterFindingsAddToTheSameEntry) {
    Report report;
    Finding live;
    live.id = "NET003";
    live.severity = Severity::Error;
    report.findings = {live, live};
    const std::vector<config::AcknowledgedRule> rules = {ack("NET003", "spare NICs")};
    acknowledge(report, rules);
    report.findings = {live};
    acknowledge(report, rules);
    ASSERT_EQ(report.acknowledged.size(), 1u);
    EXPECT_EQ(report.acknowledged[0].findings, 3);
    EXPECT_EQ(report.acknowledged[0].errors, 3);
    EXPECT_TRUE(report.findings.empty());
}

}  // namespace
}  // namespace pdctl::lint::testing
