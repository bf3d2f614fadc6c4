// PD007, PD010, PD011: start order, bind address and parallelism of the groups.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;

TEST(LintPD007, DecodeWithExplicitDependsOnThatSkipsPrefillIsAnError) {
    const auto report = Scenario()
                            .replace(kYaml, "    profile: decode.env\n",
                                     "    profile: decode.env\n    depends_on: [mooncake-master]\n")
                            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD007"));
    const auto found = with_id(report, "PD007");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:21:3");
    EXPECT_TRUE(
        contains(found[0].message,
                 "decode does not wait for prefill: its depends_on [mooncake-master] does not lead to it"));
}

TEST(LintPD007, TheStageOrderIsNamedWhenDecodeStartsFirst) {
    // Listed before prefill and waiting for nothing, decode-first starts right after the master.
    const auto report = Scenario()
                            .replace(kYaml, "  prefill:\n",
                                     "  decode-first:\n    kind: sglang\n    mode: decode\n"
                                     "    nodes: [n2]\n    profile: decode.env\n"
                                     "    host: 0.0.0.0\n    port: 30001\n"
                                     "    dist_init_port: 5001\n    depends_on: []\n"
                                     "  prefill:\n")
                            .run();
    const auto found = with_id(report, "PD007");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].role, "decode-first");
    EXPECT_TRUE(contains(found[0].message,
                         "its depends_on [] does not lead to it; the plan starts it first "
                         "(stage 2, prefill is stage 3)"));
}

TEST(LintPD007, ATransitiveDependencyIsEnough) {
    const auto report =
        Scenario()
            .replace(kYaml, "    profile: decode.env\n",
                     "    profile: decode.env\n    depends_on: [warm-up]\n")
            .append(kYaml,
                    "  warm-up:\n    kind: generic\n    nodes: [n2]\n    command: [sleep, '1']\n"
                    "    health: {path: /ok, port: 7000}\n    depends_on: [prefill]\n")
            .run();
    EXPECT_TRUE(report.findings.empty()) << report.findings.front().message;
}

TEST(LintPD010, LoopbackHostOnAMultiNodeGroupIsAnError) {
    // The router then also gets a loopback URL for decode: PD009 reports that side.
    const auto report = Scenario()
                            .replace(kYaml, "    profile: decode.env\n    host: 0.0.0.0\n",
                                     "    profile: decode.env\n    host: 127.0.0.1\n")
                            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD009", "PD010"));
    const auto found = with_id(report, "PD010");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:21:3");
    EXPECT_TRUE(
        contains(found[0].message,
                 "decode is a 2-node group bound to loopback (--host on n3 127.0.0.1, n4 127.0.0.1)"));
}

TEST(LintPD010, ExtraArgsHostOverridesTheConfigAndLocalhostCounts) {
    const auto report = Scenario().append(kPrefillEnv, "EXTRA_ARGS=\"--host localhost\"\n").run();
    const auto found = with_id(report, "PD010");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_TRUE(contains(found[0].message, "--host on n1 localhost, n2 localhost"));
}

TEST(LintPD010, TheLocalSimulatedClusterGetsInfoInstead) {
    const auto report = Scenario()
                            .replace(kYaml, "cluster: lint\n", "cluster: lint\nexecutor: local\n")
                            .append(kPrefillEnv, "EXTRA_ARGS=\"--host 127.0.0.1\"\n")
                            .run();
    const auto found = with_id(report, "PD010");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Info);
    EXPECT_TRUE(contains(found[0].message, "expected on the local simulated cluster"));
}

TEST(LintPD011, TpSizeThatIsNotNodesTimesGpusIsAnError) {
    const auto report =
        Scenario()
            .replace(kYaml, "    profile: prefill.env\n", "    profile: prefill.env\n    tp_size: 8\n")
            .run();
    // TP8 prefill beside the TP16 decode is also a pairing SGLang cannot transfer between.
    EXPECT_THAT(problem_ids(report), ElementsAre("PD011", "PD016"));
    const auto found = with_id(report, "PD011");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:14:3");
    EXPECT_EQ(found[0].message, "prefill runs --tp-size 8 = 8 GPUs, but has 2 nodes x 8 GPUs = 16");
    EXPECT_TRUE(contains(found[0].fix, "set tp_size to 16"));
}

TEST(LintPD011, TheLastAliasInExtraArgsWinsAndPipelineParallelismCounts) {
    auto last_wins = Scenario().append(kDecodeEnv, "EXTRA_ARGS=\"--tp 4\"\n").run();
    const auto found = with_id(last_wins, "PD011");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message, "decode runs --tp-size 4 = 4 GPUs"));

    EXPECT_TRUE(
        with_id(Scenario().append(kDecodeEnv, "EXTRA_ARGS=\"--tp-size 8 --pp-size 2\"\n").run(), "PD011")
            .empty());
}

// Prefill as two single-node TP8 groups, decode one TP16 group of two nodes: both pairings differ.
Scenario single_node_prefill_groups() {
    return std::move(Scenario().replace(kYaml, "    mode: prefill\n    nodes: [n1, n2]\n",
                                        "    mode: prefill\n    groups: [[n1], [n2]]\n"));
}

TEST(LintPD016, PrefillAndDecodeGroupsOfDifferentTpSizesAreNamedPerPairing) {
    const auto report = single_node_prefill_groups().run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD016"));
    const auto found = with_id(report, "PD016");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(found[0].message,
              "the router pairs prefill (--tp-size 8) with decode (--tp-size 16), and not both set "
              "SGLANG_DISAGG_STAGING_BUFFER: SGLang refuses the KV transfer only at the first request, which "
              "then hangs");
    EXPECT_TRUE(contains(found[1].message, "pairs prefill-2 (--tp-size 8) with decode (--tp-size 16)"));
    EXPECT_TRUE(contains(found[0].fix, "SGLANG_DISAGG_STAGING_BUFFER=1"));
}

TEST(LintPD016, TheStagingBufferOnBothSidesAllowsHeterogeneousTp) {
    auto both = single_node_prefill_groups();
    both.append(kPrefillEnv, "SGLANG_DISAGG_STAGING_BUFFER=1\n")
        .append(kDecodeEnv, "SGLANG_DISAGG_STAGING_BUFFER=1\n");
    EXPECT_TRUE(with_id(both.run(), "PD016").empty());
    auto one = single_node_prefill_groups();
    one.append(kDecodeEnv, "SGLANG_DISAGG_STAGING_BUFFER=1\n");
    EXPECT_EQ(with_id(one.run(), "PD016").size(), 2u) << "the prefill side needs it too";
}

TEST(LintPD017, AContainerRoleThatMayNotPtraceCannotBeStackDumped) {
    const auto report =
        Scenario().replace(kYaml, "options: [--cap-add, SYS_PTRACE]", "options: [--network, host]").run();
    const auto found = with_id(report, "PD017");
    ASSERT_EQ(found.size(), 2u) << "prefill and decode";
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_TRUE(contains(found[0].message, "`pdctl stack` (py-spy) will fail with Permission Denied"));
    EXPECT_TRUE(contains(found[0].fix, "--cap-add, SYS_PTRACE"));
    for (const char* allowed : {"[--privileged]", "[--cap-add=sys_ptrace]", "[--cap-add, ALL]"})
        EXPECT_TRUE(with_id(Scenario()
                                .replace(kYaml, "options: [--cap-add, SYS_PTRACE]",
                                         std::string("options: ") + allowed)
                                .run(),
                            "PD017")
                        .empty())
            << allowed;
}

}  // namespace
}  // namespace pdctl::lint::testing
