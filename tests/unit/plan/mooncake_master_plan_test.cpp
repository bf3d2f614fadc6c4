// The master's RPC port flag follows the Mooncake release the config shows: --rpc_port from 0.3.4.post1
// on, --port before it or when the release is unknown; the plan's program: line says which and why.
#include <gtest/gtest.h>

#include <algorithm>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"

namespace pdctl::plan {
namespace {

const char* kCluster = R"(cluster: mc
defaults:
  container: {image: IMAGE}
nodes:
  - {name: n1, address: 10.0.0.1}
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [n1]
    profile: m.env
EXTRA)";

const Stage& master_stage(const std::string& image, const std::string& profile,
                          const std::string& extra = "") {
    std::string yaml = kCluster;
    yaml.replace(yaml.find("IMAGE"), 5, image);
    yaml.replace(yaml.find("EXTRA"), 5, extra);
    static Plan plan;
    plan = build_plan(config::load_cluster(
        "/c/pdctl.yaml", config::MemoryFileSource({{"/c/pdctl.yaml", yaml}, {"/c/m.env", profile}})));
    return plan.stages.at(0);
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
    return std::find(argv.begin(), argv.end(), word) != argv.end();
}

TEST(MooncakeMasterPlan, BootstrapsWheelChoosesRpcPort) {
    const auto& stage = master_stage(
        "lmsysorg/sglang:kimi-k3",
        "BOOTSTRAP=\"pip install /w/mooncake_transfer_engine-0.3.12.post1-cp312-none-any.whl\"\n");
    const auto& argv = stage.units.at(0).program.argv;
    EXPECT_TRUE(has(argv, "--rpc_port"));
    EXPECT_FALSE(has(argv, "--port"));
    EXPECT_EQ(stage.program_note,
              "mooncake_master 0.3.12.post1 (BOOTSTRAP installs "
              "`mooncake_transfer_engine-0.3.12.post1-cp312-none-any.whl`): --rpc_port");
}

TEST(MooncakeMasterPlan, AnImageTagChoosesTooAndAnOldReleaseKeepsPort) {
    EXPECT_TRUE(
        has(master_stage("kvcacheai/mooncake:v0.3.12.post1", "").units.at(0).program.argv, "--rpc_port"));
    const auto& old = master_stage("kvcacheai/mooncake:v0.3.4", "");
    EXPECT_TRUE(has(old.units.at(0).program.argv, "--port"));
    EXPECT_FALSE(has(old.units.at(0).program.argv, "--rpc_port"));
    EXPECT_EQ(old.program_note, "mooncake_master 0.3.4 (image kvcacheai/mooncake:v0.3.4): --port");
}

TEST(MooncakeMasterPlan, UnknownReleaseGetsPortAndThePlanSaysWhy) {
    const auto& stage = master_stage("lmsysorg/sglang:kimi-k3", "");
    EXPECT_TRUE(has(stage.units.at(0).program.argv, "--port"));
    EXPECT_EQ(stage.program_note,
              "mooncake_master of a release the config does not show (no version:, no Mooncake install in "
              "BOOTSTRAP, no Mooncake image): --port, which every 0.3.x takes");
}

}  // namespace
}  // namespace pdctl::plan
