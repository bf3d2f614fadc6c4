// PD015: on nodes with a compute network, nothing advertises the management address; SGLANG_HOST_IP is
// per node. Also what a compute_address changes in the plan.
#include "lint_test_util.hpp"
#include "pdctl/lint/argv.hpp"

namespace pdctl::lint::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Every node gets a compute address 10.9.0.N beside its management address 10.0.0.N.
Scenario two_networks() {
    Scenario scenario;
    for (int n = 1; n <= 4; ++n) {
        const auto i = std::to_string(n);
        scenario.replace(kYaml, "{name: n" + i + ", address: 10.0.0." + i + "}",
                         "{name: n" + i + ", address: 10.0.0." + i + ", compute_address: 10.9.0." + i + "}");
    }
    return scenario;
}

TEST(LintPD015, ACleanTwoNetworkClusterAdvertisesOnlyComputeAddresses) {
    const auto report = two_networks().run();
    EXPECT_THAT(problem_ids(report), IsEmpty());
}

TEST(LintPD015, AManagementAddressInArgsIsNamedWithTheFlagAndBothAddresses) {
    const auto report =
        two_networks()
            .replace(kYaml, "    args: [--enable-metrics]\n    mode: decode\n",
                     "    args: [--enable-metrics, --dist-init-addr, '10.0.0.3:6000']\n    mode: decode\n")
            .run();
    // PD019 too: the flag overrides what pdctl sets, which is the root of the mistake.
    EXPECT_THAT(problem_ids(report), ElementsAre("PD015", "PD019"));
    const auto found = with_id(report, "PD015");
    ASSERT_EQ(found.size(), 1u) << found[0].message;
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(found[0].role, "decode");
    EXPECT_TRUE(
        contains(found[0].message,
                 "decode rank 0 on n3 (10.0.0.3) is given --dist-init-addr 10.0.0.3:6000: 10.0.0.3 is "
                 "n3's management address; its compute address is 10.9.0.3"))
        << found[0].message;
}

TEST(LintPD015, AnEnvValueNamingAManagementAddressIsReportedOncePerRole) {
    const auto report = two_networks().append(kPrefillEnv, "export MOONCAKE_MASTER=10.0.0.1:50051\n").run();
    const auto found = with_id(report, "PD015");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].message, "is given MOONCAKE_MASTER=10.0.0.1:50051: 10.0.0.1 is n1's"))
        << found[0].message;
}

TEST(LintPD015, AnAddressThatOnlyStartsLikeAManagementOneIsNotReported) {
    // 10.0.0.10 is not 10.0.0.1.
    const auto report = two_networks().append(kPrefillEnv, "export SOME_PEER=10.0.0.10:7000\n").run();
    EXPECT_THAT(with_id(report, "PD015"), IsEmpty());
}

TEST(LintPD015, OneSglangHostIpForAMultiNodeGroupIsAnErrorWithoutComputeAddresses) {
    const auto report = Scenario().append(kPrefillEnv, "export SGLANG_HOST_IP=10.0.0.1\n").run();
    const auto found = with_id(report, "PD015");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Error);
    EXPECT_EQ(format_location(found[0].location), "/d/prefill.env:4:8");
    EXPECT_TRUE(contains(found[0].message,
                         "prefill sets SGLANG_HOST_IP=10.0.0.1 for all 2 of its nodes: every "
                         "rank would advertise that one address"))
        << found[0].message;
}

TEST(LintPD015, WithComputeAddressesTheProfilesSglangHostIpIsReplacedPerNode) {
    const auto scenario = two_networks().append(kPrefillEnv, "export SGLANG_HOST_IP=10.9.0.1\n");
    const auto found = with_id(scenario.run(), "PD015");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warn);
    const auto plan = scenario.plan();
    for (const auto& stage : plan.stages) {
        if (stage.role != "prefill") continue;
        for (const auto& unit : stage.units) {
            std::vector<std::string> host_ips;
            for (const auto& env : unit.program.env)
                if (env.key == "SGLANG_HOST_IP") host_ips.push_back(env.value);
            EXPECT_THAT(host_ips, ElementsAre("10.9.0." + std::to_string(unit.rank + 1))) << unit.name;
        }
    }
}

TEST(ComputeAddress, ProgramsBindAndAdvertiseItWhileSshAndMessagesKeepTheManagementAddress) {
    const auto plan =
        two_networks()
            .replace(kYaml, "    profile: prefill.env\n    host: 0.0.0.0\n", "    profile: prefill.env\n")
            .plan();
    for (const auto& stage : plan.stages) {
        if (stage.role == "prefill") {
            const auto& rank1 = stage.units.at(1);
            EXPECT_EQ(rank1.address, "10.0.0.2");
            EXPECT_EQ(rank1.compute_address, "10.9.0.2");
            EXPECT_EQ(flag_value(rank1.program.argv, {"--host"}), "10.9.0.2");
            EXPECT_EQ(flag_value(rank1.program.argv, {"--dist-init-addr"}), "10.9.0.1:5000");
            EXPECT_EQ(stage.gate.url, "http://10.9.0.1:30000/health");
        }
        if (stage.role == "router") {
            const auto& argv = stage.units.at(0).program.argv;
            const auto prefill = std::find(argv.begin(), argv.end(), "--prefill");
            ASSERT_NE(prefill, argv.end());
            EXPECT_EQ(*(prefill + 1), "http://10.9.0.1:30000");
        }
    }
}

}  // namespace
}  // namespace pdctl::lint::testing
