// pdctl bench against pdsim's radix prefix cache (docs/pdsim.md): the bench's own prompts never find
// each other in the cache, a rerun with the same --seed does and is flagged, and a workload that means to
// share a prefix gets the hit share its model predicts (docs/bench.md "The prefix cache").
#include <gtest/gtest.h>

#include "pdctl/load/workload.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

const json& only_level(const json& report) {
    return report["rows"][0]["levels"][0];
}

json bench(SimCluster& cluster, std::vector<std::string> flags) {
    std::vector<std::string> args = {"--json", "bench"};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto run = cluster.run(args, std::chrono::seconds(120));
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    return json::parse(run.out, nullptr, false);
}

// The prefill computes 100 tokens a second per GPU × TP 32: a 1600-token prompt takes 0.5 s uncached,
// about nothing when all but its last token are in the cache.
TEST(BenchCache, RunsWithoutASeedNeverHitTheCacheAndASeededRerunIsFlagged) {
    SimCluster cluster("benchcache", 185);
    cluster.append("prefill.env", "PDSIM_PREFILL_TOKENS_PER_S=100\n");
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const std::vector<std::string> row = {"--input",    "1600", "--output", "4",
                                          "--requests", "4",    "--warmup", "1"};

    // Two runs in a row with the default flags: each draws its own prompts, nothing is cached, and the
    // second measures the same TTFT as the first.
    const json first = bench(cluster, row);
    const json second = bench(cluster, row);
    for (const json* run : {&first, &second}) {
        const json& level = only_level(*run);
        EXPECT_EQ(level["cached"]["requests_reported"], 4) << level.dump();
        EXPECT_LE(level["cached"]["tokens"].get<int>(), 2 * 4) << "at most a chance token or two each";
        EXPECT_FALSE(level["cached"]["flagged"].get<bool>());
        EXPECT_TRUE((*run)["notes"].empty()) << (*run)["notes"].dump();
    }
    const double ttft_first = only_level(first)["ttft_s"]["p50"];
    const double ttft_second = only_level(second)["ttft_s"]["p50"];
    EXPECT_NEAR(ttft_second, ttft_first, 0.15 * ttft_first);
    EXPECT_GT(ttft_first, 0.45);  // the model's 0.5 s: computed, not served from memory
    EXPECT_NE(first["seed"], second["seed"]);

    // The same with --seed 1 twice: the second run sends the first one's prompts, the cache serves all
    // but their last token, TTFT collapses, and the report says so instead of calling it fast.
    std::vector<std::string> seeded = row;
    seeded.insert(seeded.end(), {"--seed", "1"});
    const json cold = bench(cluster, seeded);
    const json warm = bench(cluster, seeded);
    EXPECT_FALSE(only_level(cold)["cached"]["flagged"].get<bool>()) << only_level(cold).dump();
    const json& hit = only_level(warm);
    EXPECT_GT(hit["cached"]["share"].get<double>(), 0.99) << hit.dump();
    EXPECT_TRUE(hit["cached"]["flagged"].get<bool>());
    ASSERT_EQ(warm["notes"].size(), 1u) << warm.dump();
    EXPECT_NE(warm["notes"][0].get<std::string>().find("the prefix cache served"), std::string::npos);
    EXPECT_LT(hit["ttft_s"]["p50"].get<double>(), 0.25 * only_level(cold)["ttft_s"]["p50"].get<double>());

    // --flush-cache empties every group's cache first: the same seed is computed again.
    std::vector<std::string> flushed = seeded;
    flushed.push_back("--flush-cache");
    const json again = bench(cluster, flushed);
    EXPECT_FALSE(only_level(again)["cached"]["flagged"].get<bool>()) << again.dump();
    EXPECT_GT(only_level(again)["ttft_s"]["p50"].get<double>(), 0.45);
}

TEST(BenchCache, TheSharedPrefixScenarioGetsTheHitShareItsModelPredicts) {
    SimCluster cluster("benchprefix", 186);
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const json report = bench(cluster, {"--scenario", "shared-prefix", "--warmup", "2"});
    const json& level = only_level(report);
    const auto row = ops::shared_prefix_row();
    const int measured = level["ok"];
    EXPECT_EQ(measured, row.shared_prefix.requests());
    const double predicted = load::predicted_shared_prefix_hit_share(row.shared_prefix, 2, measured);
    EXPECT_NEAR(level["predicted_cache_share"].get<double>(), predicted, 1e-9);
    // The server keeps one token of every prompt to compute (SGLang does): a hair under the model.
    EXPECT_NEAR(level["cached"]["share"].get<double>(), predicted, 0.01) << level["cached"].dump();
    EXPECT_FALSE(level["cached"]["flagged"].get<bool>());
}

TEST(BenchCache, AConversationsTurnsHitThePreviousTurnsPromptAndAreReportedInOrder) {
    SimCluster cluster("benchturns", 189);
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const json report = bench(cluster, {"--scenario", "multi-turn", "--warmup", "2"});
    const json& level = only_level(report);
    const auto shape = ops::multi_turn_row().multi_turn;
    ASSERT_EQ(level["by_tag"].size(), static_cast<std::size_t>(shape.turns)) << level["by_tag"].dump();
    for (int turn = 1; turn <= shape.turns; ++turn) {
        const json& tagged = level["by_tag"][static_cast<std::size_t>(turn - 1)];
        EXPECT_EQ(tagged["tag"], "turn " + std::to_string(turn));
        // The prefill saw the previous turn's prompt, never decode's answer: that prompt is the hit,
        // less the one token the server keeps to compute.
        EXPECT_NEAR(tagged["cached_share"].get<double>(), load::predicted_multi_turn_hit_share(shape, turn),
                    0.01)
            << tagged.dump();
    }
    EXPECT_NEAR(level["cached"]["share"].get<double>(), level["predicted_cache_share"].get<double>(), 0.01);
}

}  // namespace
}  // namespace pdctl::testing
