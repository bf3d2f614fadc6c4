// PD022: an sglang role without --enable-metrics, whose /metrics answers 404.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

TEST(LintPD022, ARoleWithoutEnableMetricsIsNotedOncePerRolesEntry) {
    const auto report =
        Scenario()
            .replace(kYaml, "    args: [--enable-metrics]\n    mode: decode\n", "    mode: decode\n")
            .run();
    EXPECT_THAT(problem_ids(report), ::testing::IsEmpty()) << "info: it never refuses a start";
    const auto found = with_id(report, "PD022");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:21:3");
    EXPECT_TRUE(
        contains(found[0].message, "decode runs SGLang without --enable-metrics: its /metrics answers 404"))
        << found[0].message;
    EXPECT_TRUE(contains(found[0].fix, "add --enable-metrics")) << found[0].fix;
}

TEST(LintPD022, EnableMetricsInExtraArgsCountsAndTwoGroupsAreOneFinding) {
    auto scenario =
        Scenario()
            .replace(kYaml, "    args: [--enable-metrics]\n    mode: prefill\n    nodes: [n1, n2]\n",
                     "    mode: prefill\n    groups: [[n1], [n2]]\n")
            .replace(kYaml, "    args: [--enable-metrics]\n    mode: decode\n", "    mode: decode\n");
    EXPECT_EQ(with_id(scenario.run(), "PD022").size(), 2u) << "prefill (two groups) and decode, once each";
    scenario.append(kDecodeEnv, "EXTRA_ARGS=\"--enable-metrics\"\n");
    const auto found = with_id(scenario.run(), "PD022");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].role, "prefill");
}

}  // namespace
}  // namespace pdctl::lint::testing
