// PD020 (a mooncake_master flag its Mooncake release does not have) and PD021 (SMG removing the
// workers `pdctl heal` adds back).
#include "lint_test_util.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;

const std::string kMaster = "    kind: mooncake-master\n    nodes: [n1]\n";

Scenario master(const std::string& keys) {
    return Scenario().replace(kYaml, kMaster, kMaster + keys);
}

TEST(LintPD020, AFlagNewerThanTheReleaseIsAnError) {
    const auto report = master("    version: 0.3.12.post1\n    args: [--metrics_host, 10.0.0.1]\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD020"));
    const auto found = with_id(report, "PD020");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "mooncake-master");
    EXPECT_EQ(
        found[0].message,
        "mooncake-master passes --metrics_host to mooncake_master, which Mooncake 0.3.12.post1 (version:) "
        "does not have (it is on Mooncake's main only, in no release up to 0.3.12.post1): gflags stops "
        "the master on a flag it does not know");
    EXPECT_EQ(format_location(found[0].location), "/d/pdctl.yaml:11:3");
}

TEST(LintPD020, TheReleaseCanComeFromItsBootstrapAndOneDashCounts) {
    const auto report = master("    profile: m.env\n    args: ['-rpc_address=10.0.0.1']\n")
                            .append("/d/m.env", "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.4\"\n")
                            .run();
    const auto found = with_id(report, "PD020");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(
        contains(found[0].message,
                 "--rpc_address to mooncake_master, which Mooncake 0.3.4 (BOOTSTRAP installs "
                 "`mooncake-transfer-engine==0.3.4`) does not have (it first appears in 0.3.4.post1)"))
        << found[0].message;
}

TEST(LintPD020, ARemovedFlagIsAnErrorAndADeprecatedOneAWarning) {
    const auto removed = with_id(master("    version: 0.3.6\n    args: [--enable_gc=true]\n").run(), "PD020");
    ASSERT_EQ(removed.size(), 1u);
    EXPECT_EQ(removed[0].severity, Severity::Error);
    EXPECT_TRUE(
        contains(removed[0].message, "--enable_gc to mooncake_master, which Mooncake removed in 0.3.6"));
    const auto deprecated =
        with_id(master("    version: 0.3.11.post1\n    args: [--max_threads, '8']\n").run(), "PD020");
    ASSERT_EQ(deprecated.size(), 1u);
    EXPECT_EQ(deprecated[0].severity, Severity::Warn);
    EXPECT_TRUE(contains(deprecated[0].message,
                         "--max_threads to mooncake_master, deprecated since 0.3.4.post1 in favour of "
                         "--rpc_thread_num"));
    EXPECT_EQ(deprecated[0].fix, "use --rpc_thread_num instead");
}

TEST(LintPD020, NothingIsJudgedWithoutARelease) {
    // The local profile's pdsim master takes --metrics_host; with no release known pdctl cannot tell.
    EXPECT_TRUE(with_id(master("    args: [--metrics_host, 10.0.0.1]\n").run(), "PD020").empty());
    // Flags the table does not know (glog's) and values are left alone.
    EXPECT_TRUE(
        with_id(master("    version: 0.3.4\n    args: [--logtostderr, --v, '2']\n").run(), "PD020").empty());
}

TEST(LintPD020, AVersionItsOwnBootstrapContradictsIsAWarning) {
    const auto report =
        master("    version: 0.3.12.post1\n    profile: m.env\n")
            .append("/d/m.env",
                    "BOOTSTRAP=\"pip install /w/mooncake_transfer_engine-0.3.11.post1-py3-none-any.whl\"\n")
            .run();
    const auto found = with_id(report, "PD020");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].message,
              "mooncake-master says `version: 0.3.12.post1`, but its BOOTSTRAP installs "
              "`mooncake_transfer_engine-0.3.11.post1-py3-none-any.whl`, which is what runs; pdctl chooses "
              "the master's flags by version:");
}

const std::string kRouter = "    kind: router\n    nodes: [n3]\n    port: 31000\n";

Scenario router(const std::string& keys) {
    return Scenario().replace(kYaml, kRouter, kRouter + keys);
}

TEST(LintPD021, SmgRemovingUnhealthyWorkersFightsHeal) {
    const auto report = router("    impl: smg\n    args: [--remove-unhealthy-workers]\n").run();
    EXPECT_THAT(problem_ids(report), ElementsAre("PD021"));
    const auto found = with_id(report, "PD021");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    EXPECT_EQ(found[0].role, "router");
    EXPECT_TRUE(contains(found[0].message,
                         "the router removes the workers it marks failed "
                         "(--remove-unhealthy-workers), and `pdctl heal` adds"));
    EXPECT_TRUE(contains(found[0].fix, "leave worker removal to it: drop --remove-unhealthy-workers"));
}

TEST(LintPD021, TheAliasAndServiceDiscoveryCountAndTheLastWordWins) {
    EXPECT_EQ(
        with_id(router("    impl: smg\n    args: ['--worker-auto-recovery=true']\n").run(), "PD021").size(),
        1u);
    const auto discovery = with_id(router("    impl: smg\n    args: [--service-discovery]\n").run(), "PD021");
    ASSERT_EQ(discovery.size(), 1u);
    EXPECT_TRUE(contains(discovery[0].fix, "pass --no-remove-unhealthy-workers"));
    for (const std::string off : {"[--remove-unhealthy-workers, --no-remove-unhealthy-workers]",
                                  "[--service-discovery, '--remove-unhealthy-workers=false']",
                                  "[--remove-unhealthy-workers, 'false']", "[--no-worker-auto-recovery]"})
        EXPECT_TRUE(with_id(router("    impl: smg\n    args: " + off + "\n").run(), "PD021").empty()) << off;
    // Only SMG turns removal on with discovery by default.
    EXPECT_TRUE(
        with_id(router("    impl: sglang-router\n    args: [--service-discovery]\n").run(), "PD021").empty());
}

}  // namespace
}  // namespace pdctl::lint::testing
