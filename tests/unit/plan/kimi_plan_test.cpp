// The production profile reproduces the old deployment exactly (issue acceptance, checked field by field).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/report/plan_view.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::plan {
namespace {

Plan kimi_plan() {
    config::DiskFileSource disk;
    return build_plan(config::load_cluster(
        std::string(pdctl::testing::source_dir()) + "/profiles/kimi3-pro6000-pd/pdctl.yaml", disk));
}

std::string value_after(const std::vector<std::string>& argv, const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? "" : *(it + 1);
}

TEST(KimiPlan, StagesRunMasterPrefillDecodeRouter) {
    const auto plan = kimi_plan();
    ASSERT_EQ(plan.stages.size(), 4u);
    EXPECT_EQ(plan.stages[0].role, "mooncake-master");
    EXPECT_EQ(plan.stages[1].role, "prefill");
    EXPECT_EQ(plan.stages[2].role, "decode");
    EXPECT_EQ(plan.stages[3].role, "router");
    EXPECT_EQ(plan.stages[0].units[0].address, "174.1.60.1");
    // The master runs the image's Mooncake 0.3.11.post1 (`version:`), which takes the RPC port as
    // --rpc_port; the deprecated --port is not passed.
    EXPECT_EQ(value_after(plan.stages[0].units[0].program.argv, "--rpc_port"), "50051");
    EXPECT_EQ(value_after(plan.stages[0].units[0].program.argv, "--port"), "");
    EXPECT_EQ(plan.stages[0].program_note, "mooncake_master 0.3.11.post1 (version:): --rpc_port");
    EXPECT_EQ(plan.stages[0].gate.url, "http://174.1.60.1:9003/health");
}

TEST(KimiPlan, GroupsAreFourRanksWithRankZeroDistInit) {
    const auto plan = kimi_plan();
    for (const auto& [stage_index, rank0] : {std::pair{1, "174.1.60.1"}, std::pair{2, "174.1.60.5"}}) {
        const auto& stage = plan.stages[static_cast<std::size_t>(stage_index)];
        ASSERT_EQ(stage.units.size(), 4u);
        for (int rank = 0; rank < 4; ++rank) {
            const auto& argv = stage.units[static_cast<std::size_t>(rank)].program.argv;
            EXPECT_EQ(value_after(argv, "--node-rank"), std::to_string(rank));
            EXPECT_EQ(value_after(argv, "--nnodes"), "4");
            EXPECT_EQ(value_after(argv, "--dist-init-addr"), std::string(rank0) + ":5000");
            EXPECT_EQ(value_after(argv, "--tp-size"), "32");
            EXPECT_EQ(value_after(argv, "--ep-size"), "32");
            EXPECT_EQ(value_after(argv, "--disaggregation-mode"), stage.role);
        }
        EXPECT_EQ(stage.gate.url, std::string("http://") + rank0 + ":30000/health");
    }
    EXPECT_EQ(value_after(plan.stages[1].units[0].program.argv, "--disaggregation-bootstrap-port"), "8998");
}

TEST(KimiPlan, RouterIsMiniLbOnNode5WithRankZeroUrls) {
    const auto plan = kimi_plan();
    const auto& router = plan.stages[3].units.at(0);
    EXPECT_EQ(router.address, "174.1.60.5");
    const auto& argv = router.program.argv;
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--mini-lb"), argv.end());
    EXPECT_EQ(value_after(argv, "--prefill"), "http://174.1.60.1:30000");
    EXPECT_EQ(value_after(argv, "--decode"), "http://174.1.60.5:30000");
    EXPECT_EQ(value_after(argv, "--port"), "31000");
    EXPECT_EQ(plan.stages[3].gate.url, "http://174.1.60.5:31000/health");
}

TEST(KimiPlan, TextShowsTheRunbookFactsAndNoExpandableSegments) {
    const auto text = report::render_plan_text(kimi_plan(), "start");
    for (const char* needle :
         {"mooncake_transfer_engine_cuda13-0.3.12.post1", "NCCL_SOCKET_IFNAME=bond1",
          "GLOO_SOCKET_IFNAME=bond1", "NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3", "lmsysorg/sglang:kimi-k3",
          "--ulimit memlock=-1", "/dev/infiniband", "--privileged", "patch_k3_sm120.py"})
        EXPECT_NE(text.find(needle), std::string::npos) << needle;
    EXPECT_EQ(text.find("expandable_segments"), std::string::npos);
    const auto json = report::plan_to_json(kimi_plan(), "start").dump();
    EXPECT_EQ(json.find("expandable_segments"), std::string::npos);
}

}  // namespace
}  // namespace pdctl::plan
