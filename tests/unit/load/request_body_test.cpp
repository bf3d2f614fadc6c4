#include "pdctl/load/request_body.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "pdctl/load/arrivals.hpp"

namespace pdctl::load {
namespace {

TEST(GenerateRequestBody, HasExactlyTheRowsLengthsAndAsksForAStreamWithIgnoreEos) {
    const auto body = nlohmann::json::parse(generate_request_body(1680, 512, 1, 0));
    EXPECT_EQ(body["input_ids"].size(), 1680u);
    EXPECT_EQ(body["sampling_params"]["max_new_tokens"], 512);
    EXPECT_EQ(body["sampling_params"]["ignore_eos"], true);
    EXPECT_EQ(body["stream"], true);
}

TEST(GenerateRequestBody, TextBodiesAreEscapedJson) {
    const auto body = nlohmann::json::parse(text_request_body("say \"hi\"\n\u00e9", 16, false));
    EXPECT_EQ(body["text"], "say \"hi\"\n\u00e9");
    EXPECT_EQ(body["sampling_params"]["max_new_tokens"], 16);
    EXPECT_EQ(body["stream"], false);
}

TEST(GenerateRequestBody, TheSeedRepeatsAPromptAndEveryRequestGetsItsOwn) {
    EXPECT_EQ(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 7, 3));
    EXPECT_NE(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 7, 4));
    EXPECT_NE(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 8, 3));
}

// The ids of request `index` of the run `nonce`, `count` of them.
std::vector<int> prompt_of(std::uint64_t nonce, std::uint64_t index, int count = 8) {
    std::vector<int> ids;
    append_unique_ids(ids, count, nonce, index);
    return ids;
}

TEST(UniquePrompts, NoTwoRequestsOfARunShareAFirstTokenWithinTheBoundNorTwoLeadingTokensIn100k) {
    const std::uint64_t nonce = run_nonce_from_seed(1);
    std::set<int> first_tokens;
    std::set<std::pair<int, int>> leading_pairs;
    for (std::uint64_t index = 0; index < 100'000; ++index) {
        const auto ids = prompt_of(nonce, index);
        ASSERT_EQ(ids.size(), 8u);
        for (const int id : ids) {
            ASSERT_GE(id, kFirstPromptId);
            ASSERT_LT(id, kFirstPromptId + kPromptIdRange);
        }
        if (index < kDistinctFirstTokens) {
            EXPECT_TRUE(first_tokens.insert(ids[0]).second) << index;
        }
        EXPECT_TRUE(leading_pairs.insert({ids[0], ids[1]}).second) << index;
    }
    EXPECT_EQ(first_tokens.size(), kDistinctFirstTokens);
    // Any window of the bound's length, not only the one from 0: a level starts anywhere in the run.
    first_tokens.clear();
    for (std::uint64_t index = 54'321; index < 54'321 + kDistinctFirstTokens; ++index)
        EXPECT_TRUE(first_tokens.insert(prompt_of(nonce, index, 1)[0]).second) << index;
}

TEST(UniquePrompts, TheSeedReproducesARunAndOtherRunsDiffer) {
    EXPECT_EQ(run_nonce_from_seed(7), run_nonce_from_seed(7));
    EXPECT_NE(run_nonce_from_seed(7), run_nonce_from_seed(8));
    EXPECT_EQ(prompt_of(run_nonce_from_seed(7), 42, 64), prompt_of(run_nonce_from_seed(7), 42, 64));
    EXPECT_NE(prompt_of(run_nonce_from_seed(7), 42, 64), prompt_of(run_nonce_from_seed(8), 42, 64));
    EXPECT_NE(fresh_run_nonce(), fresh_run_nonce());
}

TEST(UniquePrompts, TwoRunsShareAFirstTokenAsOftenAsTheAnalysisSays) {
    // Run B's N requests each share their first token with one of run A's N with probability N / 30000:
    // N * N / 30000 = 3 requests a pair of runs on average, for one cached token each, and about never
    // two tokens.
    const std::uint64_t n = 300;
    const int pairs = 5000;
    std::uint64_t shared_first = 0;
    std::uint64_t shared_two = 0;
    for (int pair = 0; pair < pairs; ++pair) {
        const auto a = run_nonce_from_seed(2 * static_cast<std::uint64_t>(pair));
        const auto b = run_nonce_from_seed(2 * static_cast<std::uint64_t>(pair) + 1);
        std::set<int> firsts;
        std::set<std::pair<int, int>> leads;
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto ids = prompt_of(a, i, 2);
            firsts.insert(ids[0]);
            leads.insert({ids[0], ids[1]});
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto ids = prompt_of(b, i, 2);
            shared_first += firsts.count(ids[0]);
            shared_two += leads.count({ids[0], ids[1]});
        }
    }
    const double per_pair = static_cast<double>(shared_first) / pairs;
    EXPECT_GT(per_pair, 2.0);
    EXPECT_LT(per_pair, 4.0);
    EXPECT_LT(shared_two, 10u);  // expected 3 × 5000 / 30000 = 0.5
}

TEST(PoissonArrivals, GapsAverageOneOverTheRateAndRepeatWithTheSeed) {
    PoissonArrivals arrivals(20, 1);
    PoissonArrivals again(20, 1);
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        const double gap = arrivals.next_gap_s();
        EXPECT_EQ(gap, again.next_gap_s());
        sum += gap;
    }
    EXPECT_NEAR(sum / n, 0.05, 0.002);
    EXPECT_EQ(PoissonArrivals(INFINITY, 1).next_gap_s(), 0);
}

}  // namespace
}  // namespace pdctl::load
