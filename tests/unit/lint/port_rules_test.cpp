// PD012, PD013: every listening port of every unit, per host.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;

TEST(LintPD012, RouterOnTheDecodePortIsAnError) {
    const auto report = Scenario().replace(kYaml, "    port: 31000\n", "    port: 30000\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD012"));
    const auto found = with_id(report, "PD012");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "router");
    EXPECT_EQ(found[0].node, "n3");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:28:3");
    EXPECT_EQ(found[0].message,
              "n3 (10.0.0.3) port 30000 is used by decode rank 0 (--port), router rank 0 (--port)");
    EXPECT_TRUE(contains(found[0].fix, "give router another port (`port:` on the role)"));
}

TEST(LintPD012, MasterMetricsOnThePrefillDistInitPortIsAnError) {
    const auto report =
        Scenario().replace(kYaml, "    nodes: [n1]\n", "    nodes: [n1]\n    metrics_port: 5000\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD012"));
    const auto found = with_id(report, "PD012");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].message,
              "n1 (10.0.0.1) port 5000 is used by mooncake-master rank 0 (metrics port), prefill rank 0 "
              "(dist-init port)");
}

TEST(LintPD012, OneUnitClashingWithItselfViaExtraArgsCounts) {
    const auto report =
        Scenario().append(kPrefillEnv, "EXTRA_ARGS=\"--disaggregation-bootstrap-port 30000\"\n").run();
    const auto found = with_id(report, "PD012");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message,
                         "port 30000 is used by prefill rank 0 (--port), prefill rank 0 "
                         "(bootstrap port)"));
}

// A second single-node prefill on n1: both bootstrap servers would take 8998. (16 GPUs, so it runs
// the decode's TP16 and PD016 stays quiet.)
const char* kSecondPrefill = R"(  prefill-b:
    kind: sglang
    args: [--enable-metrics]
    mode: prefill
    nodes: [n1]
    profile: prefill.env
    host: 0.0.0.0
    port: 30001
    gpus_per_node: 16
)";

TEST(LintPD013, TwoPrefillsOnOneHostWithOneBootstrapPortIsAnError) {
    const auto report =
        Scenario().replace(kYaml, "  decode:\n", std::string(kSecondPrefill) + "  decode:\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD013"));
    const auto found = with_id(report, "PD013");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill-b");
    EXPECT_EQ(found[0].node, "n1");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:21:3");
    EXPECT_TRUE(contains(
        found[0].message,
        "prefills prefill and prefill-b both run their bootstrap server on n1 (10.0.0.1) port 8998"));
    EXPECT_TRUE(contains(found[0].fix, "own `bootstrap_port:` (e.g. 8999)"));
}

TEST(LintPD013, ADistinctBootstrapPortPerPrefillPasses) {
    const auto report = Scenario()
                            .replace(kYaml, "  decode:\n",
                                     std::string(kSecondPrefill) + "    bootstrap_port: 8999\n  decode:\n")
                            .run();
    EXPECT_TRUE(report.findings.empty()) << report.findings.front().message;
}

}  // namespace
}  // namespace pdctl::lint::testing
