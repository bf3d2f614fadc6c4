// Which rank of a group is stalled: the pure rule `start`'s progress and `status` share.
#include "pdctl/engine/stall.hpp"

#include <gtest/gtest.h>

namespace pdctl::engine {
namespace {

using namespace std::chrono_literals;
using runtime::Phase;
using V = RankVerdict;

RankActivity rank(int index, Phase phase, std::chrono::milliseconds quiet) {
    return {index, "n" + std::to_string(index + 1), phase, quiet};
}

TEST(Stall, TheRankTheOthersMovedPastIsStalledAndTheOthersWait) {
    // Prefill rank 2 hung while sizing its KV cache; the others sized theirs and wait to serve.
    const std::vector<RankActivity> ranks = {rank(0, Phase::kCudaGraphs, 10s),
                                             rank(1, Phase::kCudaGraphs, 10s), rank(2, Phase::kKvCache, 12s),
                                             rank(3, Phase::kCudaGraphs, 10s)};
    EXPECT_EQ(judge_ranks(ranks, 5s, false),
              (std::vector<V>{V::kWaiting, V::kWaiting, V::kStalled, V::kWaiting}));
    EXPECT_EQ(describe_stall(ranks, 2),
              "stalled while allocating KV cache: its log has been quiet for 12.0s while ranks 0,1,3 moved "
              "past it");
}

TEST(Stall, ARankThatLoggedTheEndOfAPhaseIsPastOneStillInIt) {
    // Prefill captures no CUDA graphs: after "Memory pool end" the ranks wait at the next collective
    // step, still in the KV phase by their last start line.
    std::vector<RankActivity> ranks = {rank(0, Phase::kKvCache, 9s), rank(1, Phase::kKvCache, 12s)};
    ranks[0].phase_done = true;
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kWaiting, V::kStalled}));
    EXPECT_EQ(
        describe_stall(ranks, 1),
        "stalled while allocating KV cache: its log has been quiet for 12.0s while rank 0 moved past it");
    ranks[1].phase_done = true;
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kStalled, V::kStalled}));
    EXPECT_EQ(describe_stall(ranks, 1),
              "stalled after allocating KV cache: its log has been quiet for 12.0s");
}

TEST(Stall, ALaggardIsStalledEvenWhileTheOthersStillMove) {
    const std::vector<RankActivity> ranks = {rank(0, Phase::kCudaGraphs, 1s), rank(1, Phase::kKvCache, 6s)};
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kMoving, V::kStalled}));
    EXPECT_EQ(
        describe_stall(ranks, 1),
        "stalled while allocating KV cache: its log has been quiet for 6.0s while rank 0 moved past it");
}

TEST(Stall, AQuietLogWithinTheThresholdIsMoving) {
    const std::vector<RankActivity> ranks = {rank(0, Phase::kCudaGraphs, 5s), rank(1, Phase::kKvCache, 5s)};
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kMoving, V::kMoving}));
}

TEST(Stall, ARankAheadOfAMovingLaggardWaitsForIt) {
    // Rank 1 still loads its weights (its log moves); rank 0 loaded its own and waits at the
    // all-reduce before the KV cache is sized.
    const std::vector<RankActivity> ranks = {rank(0, Phase::kKvCache, 20s),
                                             rank(1, Phase::kLoadingWeights, 1s)};
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kWaiting, V::kMoving}));
}

TEST(Stall, JoinedRanksAreDoneAndNeverBehindARankZeroStillWarmingUp) {
    const std::vector<RankActivity> ranks = {rank(0, Phase::kWarmup, 9s), rank(1, Phase::kJoined, 9s),
                                             rank(2, Phase::kJoined, 9s)};
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kStalled, V::kWaiting, V::kWaiting}));
    EXPECT_EQ(describe_stall(ranks, 0),
              "stalled while warming up: its log has been quiet for 9.0s while ranks 1,2 moved past it");
}

TEST(Stall, AGroupQuietAtOnePlaceIsStalledEverywhereAndAloneRankToo) {
    const std::vector<RankActivity> level = {rank(0, Phase::kInitialising, 9s),
                                             rank(1, Phase::kInitialising, 9s)};
    EXPECT_EQ(judge_ranks(level, 5s, false), (std::vector<V>{V::kStalled, V::kStalled}));
    EXPECT_EQ(describe_stall(level, 1), "stalled while initialising: its log has been quiet for 9.0s");
    EXPECT_EQ(judge_ranks({rank(0, Phase::kCudaGraphs, 9s)}, 5s, false), (std::vector<V>{V::kStalled}));
}

TEST(Stall, AServingGroupAndAFailedRankAreNeverStalled) {
    const std::vector<RankActivity> ranks = {rank(0, Phase::kReady, 1h), rank(1, Phase::kJoined, 1h)};
    EXPECT_EQ(judge_ranks(ranks, 5s, true), (std::vector<V>{V::kMoving, V::kMoving}));
    // Serving once, now rank 0 no longer answers: every quiet rank has stopped making progress.
    EXPECT_EQ(judge_ranks(ranks, 5s, false), (std::vector<V>{V::kStalled, V::kStalled}));
    const std::vector<RankActivity> failed = {rank(0, Phase::kCudaGraphs, 9s), rank(1, Phase::kFailed, 9s)};
    EXPECT_EQ(judge_ranks(failed, 5s, false), (std::vector<V>{V::kStalled, V::kMoving}));
}

TEST(Stall, NoThresholdJudgesNothing) {
    EXPECT_EQ(judge_ranks({rank(0, Phase::kKvCache, 1h)}, 0s, false), (std::vector<V>{V::kMoving}));
    EXPECT_EQ(verdict_id(V::kStalled), "stalled");
    EXPECT_EQ(verdict_id(V::kWaiting), "waiting");
}

}  // namespace
}  // namespace pdctl::engine
