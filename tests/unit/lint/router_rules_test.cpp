// PD008, PD009: what the router is told about its workers, against what the workers do.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;

TEST(LintPD008, ExtraArgsBootstrapPortThatTheRouterDoesNotKnowIsAnError) {
    const auto report =
        Scenario().append(kPrefillEnv, "EXTRA_ARGS=\"--disaggregation-bootstrap-port 9000\"\n").run();
    // PD019 too: EXTRA_ARGS overrides the port pdctl sets (and tells the router).
    EXPECT_THAT(problem_ids(report), ElementsAre("PD008", "PD019"));
    const auto found = with_id(report, "PD008");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill");
    EXPECT_EQ(found[0].node, "n1");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:14:3");
    EXPECT_EQ(
        found[0].message,
        "the router sends requests for http://10.0.0.1:30000 with bootstrap port 8998 (the router passes "
        "8998), but prefill listens on 9000 (--disaggregation-bootstrap-port in its args/EXTRA_ARGS, the "
        "last one wins)");
    EXPECT_TRUE(contains(found[0].fix, "set `bootstrap_port: 9000` on role prefill"));
}

TEST(LintPD008, APortlessRouterPrefillUsesTheDecodesOwnBootstrapPort) {
    // `--prefill URL` without a port: decode falls back to its own --disaggregation-bootstrap-port.
    const auto report = Scenario()
                            .replace(kYaml, "    port: 31000\n",
                                     "    port: 31000\n    args: [--prefill, 'http://10.0.0.1:30000']\n")
                            .append(kDecodeEnv, "EXTRA_ARGS=\"--disaggregation-bootstrap-port 9100\"\n")
                            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD008"));
    const auto found = with_id(report, "PD008");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message,
                         "with bootstrap port 9100 (the router passes no port, so decode uses "
                         "its own 9100), but prefill listens on 8998"));
}

TEST(LintPD009, ALoopbackWorkerUrlIsAnError) {
    const auto report =
        Scenario()
            .replace(kYaml, "    port: 31000\n",
                     "    port: 31000\n    args: [--prefill, 'http://127.0.0.1:30000', '8998']\n")
            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD009"));
    const auto found = with_id(report, "PD009");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "router");
    EXPECT_EQ(found[0].node, "n3");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:28:3");
    EXPECT_TRUE(contains(found[0].message,
                         "the router is given --prefill http://127.0.0.1:30000, a loopback "
                         "address: decode nodes would look for the prefill's bootstrap on "
                         "themselves"));
}

TEST(LintPD009, ANonRankZeroUrlIsAnError) {
    const auto report = Scenario()
                            .replace(kYaml, "    port: 31000\n",
                                     "    port: 31000\n    args: [--decode, 'http://10.0.0.4:30000']\n")
                            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD009"));
    const auto found = with_id(report, "PD009");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message,
                         "is given --decode http://10.0.0.4:30000, which is decode rank 1 on n4 "
                         "(10.0.0.4); only rank 0 serves requests"));
}

TEST(LintPD009, AWrongPortOrAWrongModeIsAnError) {
    const auto report = Scenario()
                            .replace(kYaml, "    port: 31000\n",
                                     "    port: 31000\n    args: [--decode, 'http://10.0.0.3:30001', "
                                     "--decode, 'http://10.0.0.1:30000']\n")
                            .run();
    const auto found = with_id(report, "PD009");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_TRUE(contains(found[0].message, "which has port 30001 but decode rank 0 serves on 30000"));
    EXPECT_TRUE(contains(found[1].message, "which is prefill rank 0 on n1 (10.0.0.1), a prefill role"));
}

TEST(LintPD009, PrefillPortChangedInExtraArgsLeavesTheRouterBehind) {
    const auto report = Scenario().append(kPrefillEnv, "EXTRA_ARGS=\"--port 30005\"\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD009", "PD019"));
    EXPECT_TRUE(
        contains(with_id(report, "PD009")[0].message,
                 "--prefill http://10.0.0.1:30000, which has port 30000 but prefill rank 0 serves on 30005"));
}

TEST(LintPD009, LoopbackIsInfoOnTheLocalSimulatedCluster) {
    const auto report = Scenario()
                            .replace(kYaml, "cluster: lint\n", "cluster: lint\nexecutor: local\n")
                            .replace(kYaml, "    port: 31000\n",
                                     "    port: 31000\n    args: [--prefill, 'http://127.0.0.1:30000']\n")
                            .run();
    const auto found = with_id(report, "PD009");
    // Info for loopback, and still an error: nothing of this cluster serves at 127.0.0.1:30000.
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_EQ(found[1].severity, Severity::Error);
    EXPECT_TRUE(contains(found[1].message, "is not the rank-0 address of any prefill role of this cluster"));
}

}  // namespace
}  // namespace pdctl::lint::testing
