// The standings of a sweep from its configs' bench records: the score, the objectives, the Pareto front,
// and the configs that have no score.
#include "pdctl/ops/sweep_ranking.hpp"

#include <gtest/gtest.h>

namespace pdctl::ops {
namespace {

using nlohmann::json;

json level(int concurrency, double per_gpu, double ttft_p90, double itl_p90, int failed = 0) {
    return {{"concurrency", concurrency},
            {"rate", nullptr},
            {"ok", 10},
            {"failed", failed},
            {"output_throughput_per_gpu", per_gpu},
            {"ttft_s", {{"p50", ttft_p90 / 2}, {"p90", ttft_p90}, {"p99", ttft_p90}}},
            {"itl_s", {{"p50", itl_p90 / 2}, {"p90", itl_p90}, {"p99", itl_p90}}},
            {"e2e_s", {{"p50", 1.0}, {"p90", 2.0}, {"p99", 3.0}}}};
}

json record(const std::string& pd, std::vector<std::pair<std::string, std::vector<json>>> rows) {
    json out = {{"pd", pd}, {"gpus", {{"prefill", 48}, {"decode", 48}}}, {"rows", json::array()}};
    for (auto& [name, levels] : rows) out["rows"].push_back({{"name", name}, {"levels", levels}});
    return out;
}

TEST(SweepRanking, RanksByThroughputPerGpuAndMarksTheParetoFront) {
    const auto standings =
        rank_sweep({{"1p3d.yaml", "1P:3D",
                     record("1P:3D", {{"r", {level(4, 1.0, 1.0, 0.010), level(16, 2.0, 4.0, 0.010)}}}), ""},
                    {"2p2d.yaml", "2P:2D",
                     record("2P:2D", {{"r", {level(4, 1.2, 0.8, 0.010), level(16, 3.0, 3.0, 0.010)}}}), ""},
                    {"3p1d.yaml", "3P:1D",
                     record("3P:1D", {{"r", {level(4, 1.1, 0.5, 0.012), level(16, 2.1, 3.5, 0.020)}}}), ""}},
                   {});
    ASSERT_EQ(standings.size(), 3u);
    EXPECT_EQ(standings[0].config, "2p2d.yaml");
    EXPECT_DOUBLE_EQ(standings[0].score, 3.0);
    EXPECT_EQ(standings[1].config, "3p1d.yaml");
    EXPECT_EQ(standings[2].config, "1p3d.yaml");
    EXPECT_EQ(standings[0].gpus, 96);
    // 2P:2D beats 1P:3D at both levels; 3P:1D's c=4 has the lowest TTFT, so nothing beats it everywhere.
    EXPECT_TRUE(standings[0].points[0].pareto);
    EXPECT_TRUE(standings[0].points[1].pareto);
    EXPECT_TRUE(standings[1].points[0].pareto);
    EXPECT_FALSE(standings[1].points[1].pareto);
    EXPECT_FALSE(standings[2].points[0].pareto);
    EXPECT_FALSE(standings[2].points[1].pareto);
    EXPECT_EQ(standings[2].points[1].level, "c=16");
}

TEST(SweepRanking, ALevelOutsideTheObjectivesOrWithFailuresDoesNotCount) {
    const std::vector<SweepCandidate> candidates = {
        {"fast.yaml", "1P:1D",
         record("1P:1D", {{"r", {level(1, 1.0, 0.4, 0.010), level(8, 4.0, 5.0, 0.010)}}}), ""},
        {"lossy.yaml", "1P:1D", record("1P:1D", {{"r", {level(1, 2.0, 0.3, 0.010, 1)}}}), ""}};
    const auto open = rank_sweep(candidates, {});
    EXPECT_EQ(open[0].config, "fast.yaml");
    EXPECT_DOUBLE_EQ(open[0].score, 4.0);
    EXPECT_FALSE(open[1].no_score.empty());
    EXPECT_DOUBLE_EQ(open[1].score, 0);

    const auto bounded = rank_sweep(candidates, {1.0, std::nullopt});
    EXPECT_DOUBLE_EQ(bounded[0].score, 1.0);  // c=8 misses p90 TTFT <= 1 s
    EXPECT_FALSE(bounded[0].points[1].meets_objectives);
    const auto too_tight = rank_sweep(candidates, {std::nullopt, 0.005});
    EXPECT_NE(too_tight[0].no_score.find("no level of row r"), std::string::npos) << too_tight[0].no_score;
}

TEST(SweepRanking, TheScoreIsTheGeometricMeanOverRows) {
    const auto standings = rank_sweep(
        {{"a.yaml", "1P:1D",
          record("1P:1D", {{"short", {level(1, 8.0, 0.1, 0.01)}}, {"long", {level(1, 2.0, 1, 0.01)}}}), ""},
         {"b.yaml", "1P:1D",
          record("1P:1D", {{"short", {level(1, 5.0, 0.1, 0.01)}}, {"long", {level(1, 5.0, 1, 0.01)}}}), ""}},
        {});
    EXPECT_EQ(standings[0].config, "b.yaml");  // 5 against sqrt(8 × 2) = 4: one good row does not win
    EXPECT_DOUBLE_EQ(standings[1].score, 4.0);
}

TEST(SweepRanking, AConfigWhoseStartFailedRanksLastAndSaysWhy) {
    const auto standings =
        rank_sweep({{"broken.yaml", "3P:1D", nullptr, "start failed (exit 3)"},
                    {"ok.yaml", "2P:2D", record("2P:2D", {{"r", {level(1, 1.0, 1, 0.01)}}}), ""}},
                   {});
    EXPECT_EQ(standings[0].config, "ok.yaml");
    EXPECT_EQ(standings[1].config, "broken.yaml");
    EXPECT_EQ(standings[1].pd, "3P:1D");
    EXPECT_EQ(standings[1].no_score, "start failed (exit 3)");
    EXPECT_TRUE(standings[1].points.empty());
}

}  // namespace
}  // namespace pdctl::ops
