// PD001-PD006: what the roles' environment and BOOTSTRAP say, one scenario per rule.
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;

TEST(LintClean, TheCleanScenarioPassesEveryRule) {
    const auto report = Scenario().run();
    EXPECT_TRUE(report.findings.empty())
        << report.findings.front().id << ": " << report.findings.front().message;
    EXPECT_EQ(report.rules_run, static_cast<int>(static_rules().size()));
    EXPECT_EQ(report.rules_without_findings, report.rules_run);
}

TEST(LintRules, IdsAreUniqueAndInOrder) {
    const auto& rules = static_rules();
    for (std::size_t i = 1; i < rules.size(); ++i) EXPECT_LT(rules[i - 1].id, rules[i].id);
}

TEST(LintPD001, ExpandableSegmentsInAProfileIsAnErrorAtItsLine) {
    const auto report =
        Scenario()
            .append(kPrefillEnv, "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:True\n")
            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD001"));
    const auto found = with_id(report, "PD001");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill");
    EXPECT_EQ(format_location(found[0].location), "/d/prefill.env:4:1");
    EXPECT_TRUE(
        contains(found[0].message,
                 "prefill sets PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:True"));
    EXPECT_TRUE(contains(found[0].message, "Bad address [14]"));
    EXPECT_EQ(found[0].reference,
              "docs/doctor.md#pd001 · https://github.com/kvcache-ai/Mooncake/issues/2511");
}

TEST(LintPD001, ExplicitlyDisabledIsFine) {
    const auto report =
        Scenario().append(kDecodeEnv, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False\n").run();
    EXPECT_TRUE(with_id(report, "PD001").empty());
}

TEST(LintPD001, YamlEnvAndBootstrapExportsCountToo) {
    const auto report =
        Scenario()
            .replace(kYaml, "    profile: decode.env\n",
                     "    profile: decode.env\n    env: {PYTORCH_ALLOC_CONF: \"expandable_segments:true\"}\n")
            .replace(kPrefillEnv, "BOOTSTRAP=\"",
                     "BOOTSTRAP=\"export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True && ")
            .run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD001"));
    const auto found = with_id(report, "PD001");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].role, "prefill");                              // file order of the roles
    EXPECT_EQ(format_location(found[0].location), "/d/prefill.env");  // BOOTSTRAP has no line in the model
    EXPECT_TRUE(
        contains(found[0].message, "BOOTSTRAP sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
    EXPECT_EQ(found[1].role, "decode");
    EXPECT_EQ(format_location(found[1].location), "/d/pdctl.yaml:27:31");
}

TEST(LintPD002, AnOldMooncakeWheelInBootstrapIsAnError) {
    const auto report = Scenario().replace(kDecodeEnv, "0.3.12.post1", "0.3.11.post1").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD002"));
    const auto found = with_id(report, "PD002");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/decode.env");
    EXPECT_TRUE(contains(found[0].message, "installs Mooncake 0.3.11.post1"));
    EXPECT_TRUE(contains(found[0].message, "mooncake_transfer_engine_cuda13-0.3.11.post1-cp312"));
    EXPECT_TRUE(contains(found[0].message, "older than 0.3.12.post1"));
}

TEST(LintPD002, PinsAreReadAndNewerVersionsPass) {
    auto pinned = Scenario();
    pinned.files[kPrefillEnv] =
        std::string(kCleanProfile) + "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.12\"\n";
    const auto found = with_id(pinned.run(), "PD002");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message, "installs Mooncake 0.3.12 (`mooncake-transfer-engine==0.3.12`)"));

    auto newer = Scenario();
    newer.files[kPrefillEnv] =
        std::string(kCleanProfile) + "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.13\"\n";
    EXPECT_TRUE(newer.run().findings.empty());
}

// The clean profile without its BOOTSTRAP line.
const char* kProfileWithoutBootstrap = "export NCCL_SOCKET_IFNAME=bond1\nexport GLOO_SOCKET_IFNAME=bond1\n";

TEST(LintPD003, ContainerRoleWithoutMooncakeUpgradeIsAWarning) {
    auto scenario = Scenario();
    scenario.files[kDecodeEnv] =
        std::string(kProfileWithoutBootstrap) + "BOOTSTRAP=\"python3 /tmp/patch.py\"\n";
    const auto report = scenario.run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD003"));
    const auto found = with_id(report, "PD003");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/decode.env");
    EXPECT_TRUE(contains(found[0].message,
                         "decode runs Mooncake from image lmsysorg/sglang:kimi-k3 without upgrading"));
}

TEST(LintPD003, ProcessRuntimeAndOtherBackendsAreNotChecked) {
    auto scenario = Scenario();
    scenario.files[kDecodeEnv] = kProfileWithoutBootstrap;
    scenario.files[kPrefillEnv] = kProfileWithoutBootstrap;
    const auto report =
        scenario
            .replace(kYaml, "    profile: decode.env\n", "    profile: decode.env\n    runtime: process\n")
            .replace(kYaml, "    profile: prefill.env\n",
                     "    profile: prefill.env\n    transfer_backend: nixl\n")
            .run();
    EXPECT_TRUE(report.findings.empty()) << report.findings.front().message;
}

TEST(LintPD004, MissingGlooOnAMultiNodeGroupIsAWarning) {
    const auto report = Scenario().replace(kDecodeEnv, "export GLOO_SOCKET_IFNAME=bond1\n", "").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD004"));
    const auto found = with_id(report, "PD004");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_EQ(format_location(found[0].location), "/d/decode.env");
    EXPECT_TRUE(contains(found[0].message, "decode runs on 2 nodes without GLOO_SOCKET_IFNAME"));
}

TEST(LintPD005, NcclAndGlooOnDifferentNicsIsAnError) {
    // Changing prefill's GLOO splits it from its own NCCL and from decode's GLOO: both are PD005.
    const auto report =
        Scenario().replace(kPrefillEnv, "GLOO_SOCKET_IFNAME=bond1", "GLOO_SOCKET_IFNAME=bond2").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD005"));
    const auto found = with_id(report, "PD005");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill");
    EXPECT_EQ(format_location(found[0].location), "/d/prefill.env:2:8");
    EXPECT_TRUE(
        contains(found[0].message, "prefill sets NCCL_SOCKET_IFNAME=bond1 but GLOO_SOCKET_IFNAME=bond2"));
    EXPECT_EQ(found[1].role, "decode");
    EXPECT_EQ(format_location(found[1].location), "/d/decode.env:2:8");
    EXPECT_TRUE(contains(found[1].message, "decode sets GLOO_SOCKET_IFNAME=bond1 but prefill sets bond2"));
}

TEST(LintPD005, PrefillAndDecodeOnDifferentNicsIsAnError) {
    auto scenario = Scenario();
    scenario.files[kDecodeEnv] = R"(export NCCL_SOCKET_IFNAME=bond2
export GLOO_SOCKET_IFNAME=bond2
BOOTSTRAP="pip install mooncake-transfer-engine==0.3.12.post1"
)";
    const auto report = scenario.run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD005"));
    const auto found = with_id(report, "PD005");
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(format_location(found[0].location), "/d/decode.env:1:8");
    EXPECT_TRUE(contains(found[0].message,
                         "decode sets NCCL_SOCKET_IFNAME=bond2 but prefill sets bond1 (/d/prefill.env:1:8)"));
    EXPECT_EQ(format_location(found[1].location), "/d/decode.env:2:8");
}

TEST(LintPD005, SecretValuesAreNeverShown) {
    const auto report =
        Scenario()
            .replace(kYaml, "cluster: lint\n", "cluster: lint\nsecrets: [NCCL_SOCKET_IFNAME]\n")
            .replace(kDecodeEnv, "NCCL_SOCKET_IFNAME=bond1", "NCCL_SOCKET_IFNAME=bond7")
            .run();
    const auto found = with_id(report, "PD005");
    ASSERT_FALSE(found.empty());
    for (const auto& finding : found) {
        EXPECT_FALSE(contains(finding.message, "bond7")) << finding.message;
        EXPECT_TRUE(contains(finding.message, "NCCL_SOCKET_IFNAME=[REDACTED]")) << finding.message;
    }
}

TEST(LintPD006, TheManagementNicIsAnError) {
    auto scenario = Scenario();
    for (const auto* file : {kPrefillEnv, kDecodeEnv})
        scenario.replace(file, "NCCL_SOCKET_IFNAME=bond1", "NCCL_SOCKET_IFNAME=bond0")
            .replace(file, "GLOO_SOCKET_IFNAME=bond1", "GLOO_SOCKET_IFNAME=bond0");
    const auto report = scenario.run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD006"));
    const auto found = with_id(report, "PD006");
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "prefill");
    EXPECT_EQ(format_location(found[0].location), "/d/prefill.env:1:8");
    EXPECT_TRUE(
        contains(found[0].message, "prefill sets NCCL_SOCKET_IFNAME=bond0: bond0 is the management network"));
    EXPECT_EQ(format_location(found[3].location), "/d/decode.env:2:8");
}

TEST(LintPD006, AnNcclPrefixThatMatchesTheManagementNicIsAnError) {
    const auto report =
        Scenario().replace(kPrefillEnv, "NCCL_SOCKET_IFNAME=bond1", "NCCL_SOCKET_IFNAME=bond").run();
    const auto found = with_id(report, "PD006");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(
        found[0].message,
        "NCCL_SOCKET_IFNAME=bond: the prefix `bond` also matches bond0, which is the management network"));
}

TEST(LintPD006, ExactNamesExclusionsAndOtherOptionsPass) {
    auto scenario = Scenario()
                        .replace(kPrefillEnv, "NCCL_SOCKET_IFNAME=bond1", "NCCL_SOCKET_IFNAME==bond1")
                        .replace(kDecodeEnv, "NCCL_SOCKET_IFNAME=bond1", "NCCL_SOCKET_IFNAME=^bond0,lo");
    EXPECT_TRUE(with_id(scenario.run(), "PD006").empty());
    // The management NICs are the cluster's `doctor: management_interfaces:`, for clusters whose
    // management NIC is not bond0.
    auto cluster = config::load_cluster(kYaml, config::MemoryFileSource(Scenario().files));
    cluster.doctor.management_interfaces = {"bond1"};
    EXPECT_EQ(run_rule("PD006", cluster, plan::build_plan(cluster)).size(), 4u);
}

}  // namespace
}  // namespace pdctl::lint::testing
