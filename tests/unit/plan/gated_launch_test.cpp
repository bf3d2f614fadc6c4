// restart --gated's new ranks (plan/gated_launch.hpp): the plan's units with SGLang's launch gate and
// ports of their own for what binds before it, alternating between two slots; which groups can be
// restarted so, and why the others cannot.
#include "pdctl/plan/gated_launch.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pdctl/plan/builder.hpp"
#include "unit/config/config_test_util.hpp"

namespace pdctl::plan {
namespace {

const char* kGatedCluster = R"(cluster: kimi3
defaults:
  container: {image: lmsysorg/sglang:kimi-k3}
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
  - {name: n3, address: 10.0.0.3}
  - {name: n4, address: 10.0.0.4}
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [n1]
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n1]
  decode:
    kind: sglang
    mode: decode
    nodes: [n2, n3]
    dist_init_port: 6000
    DECODE_EXTRA
  decode-one:
    kind: sglang
    mode: decode
    nodes: [n4]
  router:
    kind: router
    nodes: [n1]
)";

Plan gated_plan_of(const std::string& decode_extra = "") {
    std::string yaml = kGatedCluster;
    yaml.replace(yaml.find("DECODE_EXTRA"), 12, decode_extra);
    return build_plan(config::testing::load(yaml));
}

std::string gated_flag_value(const std::vector<std::string>& argv, const std::string& flag) {
    const auto at = std::find(argv.begin(), argv.end(), flag);
    return at != argv.end() && at + 1 != argv.end() ? *(at + 1) : "<none>";
}

TEST(GatedLaunch, TheNewRanksGetTheGateAndADistInitPortOfTheirOwnUnderThePlansNamesAndFingerprints) {
    const auto plan = gated_plan_of();
    const auto& decode = *plan.find_stage("decode");
    const auto ports = next_gated_ports(decode, 30100, "");
    EXPECT_EQ(ports.gate, 30100);
    EXPECT_EQ(ports.dist_init, 6001);
    const auto gated = gated_stage(decode, ports);
    ASSERT_EQ(gated.units.size(), 2u);
    for (std::size_t i = 0; i < gated.units.size(); ++i) {
        const auto& unit = gated.units[i];
        EXPECT_EQ(unit.name, decode.units[i].name);
        EXPECT_EQ(unit.fingerprint, decode.units[i].fingerprint);
        EXPECT_EQ(gated_flag_value(unit.program.argv, "--gated-launch-port"), "30100");
        EXPECT_EQ(gated_flag_value(unit.program.argv, "--dist-init-addr"), "10.0.0.2:6001");
        EXPECT_EQ(unit.extra_labels.at(kGatedLaunchLabel), "30100:6001");
        // The start command itself carries all of it.
        const auto& argv = unit.start.argv;
        EXPECT_NE(std::find(argv.begin(), argv.end(), "pdctl.gated-launch=30100:6001"), argv.end());
        EXPECT_NE(std::find(argv.begin(), argv.end(), "10.0.0.2:6001"), argv.end());
        EXPECT_EQ(std::find(argv.begin(), argv.end(), "10.0.0.2:6000"), argv.end());
        EXPECT_NE(std::find(argv.begin(), argv.end(), "pdctl.config=" + unit.fingerprint), argv.end());
    }
    EXPECT_EQ(gate_base_url(gated, ports), "http://10.0.0.2:30100");
}

TEST(GatedLaunch, TheSlotsAlternateSoThatTheNewRanksNeverNeedWhatTheOldOnesHold) {
    const auto plan = gated_plan_of();
    const auto& decode = *plan.find_stage("decode");
    const auto first = next_gated_ports(decode, 30100, "");
    const auto second = next_gated_ports(decode, 30100, "30100:6001");
    const auto third = next_gated_ports(decode, 30100, "30101:6002");
    EXPECT_EQ(second.gate, 30101);
    EXPECT_EQ(second.dist_init, 6002);
    EXPECT_EQ(third.gate, first.gate);
    EXPECT_EQ(third.dist_init, first.dist_init);
    // A one-node group has no --dist-init-addr: only the gate moves.
    const auto one = next_gated_ports(*plan.find_stage("decode-one"), 30100, "");
    EXPECT_EQ(one.dist_init, 0);
    const auto gated_one = gated_stage(*plan.find_stage("decode-one"), one);
    EXPECT_EQ(gated_flag_value(gated_one.units[0].program.argv, "--dist-init-addr"), "<none>");
    EXPECT_EQ(gated_one.units[0].extra_labels.at(kGatedLaunchLabel), "30100:0");
}

TEST(GatedLaunch, AProfilesOwnGatePortIsReplacedNotRepeated) {
    const auto plan = gated_plan_of("args: [--gated-launch-port, \"31999\"]");
    const auto& decode = *plan.find_stage("decode");
    const auto gated = gated_stage(decode, next_gated_ports(decode, 30100, ""));
    const auto& argv = gated.units[0].program.argv;
    EXPECT_EQ(std::count(argv.begin(), argv.end(), "--gated-launch-port"), 1);
    EXPECT_EQ(gated_flag_value(argv, "--gated-launch-port"), "30100");
}

TEST(GatedLaunch, OnlyDecodeGroupsInContainersCanBeRestartedGatedAndTheRefusalSaysWhy) {
    const auto plan = gated_plan_of();
    EXPECT_EQ(gated_restart_refusal(plan, *plan.find_stage("decode")), "");
    EXPECT_NE(gated_restart_refusal(plan, *plan.find_stage("prefill")).find("bootstrap port"),
              std::string::npos);
    EXPECT_NE(gated_restart_refusal(plan, *plan.find_stage("router")).find("not an SGLang group"),
              std::string::npos);
    const auto processes = gated_plan_of("runtime: process");
    EXPECT_NE(gated_restart_refusal(processes, *processes.find_stage("decode")).find("runtime: process"),
              std::string::npos);
}

}  // namespace
}  // namespace pdctl::plan
