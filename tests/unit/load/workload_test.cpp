#include "pdctl/load/workload.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "pdctl/load/request_body.hpp"

namespace pdctl::load {
namespace {

std::vector<int> ids_of(const PlannedRequest& planned) {
    return nlohmann::json::parse(planned.body)["input_ids"].get<std::vector<int>>();
}

// A radix cache of page size 1 that keeps everything: each prompt's cached tokens are its longest
// common prefix with any prompt before it.
class PrefixCache {
  public:
    int serve(const std::vector<int>& prompt) {
        std::size_t best = 0;
        for (const auto& seen : seen_) {
            std::size_t k = 0;
            while (k < seen.size() && k < prompt.size() && seen[k] == prompt[k]) ++k;
            best = std::max(best, k);
        }
        seen_.push_back(prompt);
        return static_cast<int>(best);
    }

  private:
    std::vector<std::vector<int>> seen_;
};

PromptSource source_of(std::uint64_t seed, std::uint64_t first_index = 0) {
    return PromptSource{run_nonce_from_seed(seed), first_index, true};
}

TEST(UniqueWorkload, LevelsOfARunShareNoToken) {
    // Two levels of one run: the second's indices follow the first's 12 (warm-ups included).
    const auto first = unique_workload(source_of(1, 0), 64, 8);
    const auto second = unique_workload(source_of(1, 12), 128, 8);
    PrefixCache cache;
    for (std::uint64_t n = 0; n < 12; ++n) EXPECT_EQ(cache.serve(ids_of(first(n))), 0);
    for (std::uint64_t n = 0; n < 12; ++n) {
        const auto planned = second(n);
        EXPECT_EQ(cache.serve(ids_of(planned)), 0) << n;
        EXPECT_EQ(planned.input_tokens, 128);
        EXPECT_EQ(planned.output_tokens, 8);
        EXPECT_EQ(planned.after, -1);
    }
    // A rerun with the same seed is the same prompts: all cached but what the server must compute.
    EXPECT_EQ(cache.serve(ids_of(unique_workload(source_of(1, 0), 64, 8)(3))), 64);
    EXPECT_EQ(cache.serve(ids_of(unique_workload(source_of(2, 0), 64, 8)(3))), 0);
}

TEST(SharedPrefixWorkload, GroupsShareTheirSystemPromptAndNothingElse) {
    SharedPrefixShape shape;
    shape.groups = 4;
    shape.system_tokens = 10;
    shape.question_tokens = 5;
    shape.output_tokens = 7;
    const auto plan = shared_prefix_workload(source_of(3, 100), shape);
    const auto zero = ids_of(plan(0));
    const auto four = ids_of(plan(4));
    const auto one = ids_of(plan(1));
    ASSERT_EQ(zero.size(), 15u);
    EXPECT_EQ(plan(0).input_tokens, 15);
    EXPECT_EQ(plan(0).output_tokens, 7);
    EXPECT_EQ(std::vector<int>(zero.begin(), zero.begin() + 10),
              std::vector<int>(four.begin(), four.begin() + 10));
    EXPECT_NE(std::vector<int>(zero.begin() + 10, zero.end()),
              std::vector<int>(four.begin() + 10, four.end()));
    EXPECT_NE(zero[0], one[0]);
}

TEST(SharedPrefixWorkload, ARadixCacheServesWhatThePredictionSays) {
    SharedPrefixShape shape;
    shape.groups = 8;
    shape.system_tokens = 200;
    shape.question_tokens = 40;
    const auto plan = shared_prefix_workload(source_of(4, 7), shape);
    for (const std::uint64_t warmups : {0, 3, 10}) {
        PrefixCache cache;
        for (std::uint64_t n = 0; n < warmups; ++n) cache.serve(ids_of(plan(n)));
        const std::uint64_t measured = 50;
        double cached = 0;
        double prompt = 0;
        for (std::uint64_t n = warmups; n < warmups + measured; ++n) {
            const auto ids = ids_of(plan(n));
            cached += cache.serve(ids);
            prompt += static_cast<double>(ids.size());
        }
        EXPECT_NEAR(cached / prompt, predicted_shared_prefix_hit_share(shape, warmups, measured), 1e-3)
            << warmups;
    }
    // bench_serving's defaults, all 64 × 16 requests: 63/64 of the requests hit 2048 of 2176 tokens.
    const SharedPrefixShape defaults;
    EXPECT_EQ(defaults.requests(), 1024);
    EXPECT_NEAR(predicted_shared_prefix_hit_share(defaults, 0, 1024), (1024.0 - 64) / 1024 * 2048 / 2176,
                1e-12);
    EXPECT_EQ(predicted_shared_prefix_hit_share(defaults, 0, 64), 0);
}

TEST(MultiTurnWorkload, EachTurnIsTheConversationSoFarAndWaitsForThePreviousOne) {
    MultiTurnShape shape;
    shape.turns = 3;
    shape.system_tokens = 0;
    shape.user_tokens = 4;
    shape.output_tokens = 5;
    const auto plan = multi_turn_workload(source_of(5, 20), shape);
    const auto t1 = plan(0);
    const auto t2 = plan(1);
    const auto t3 = plan(2);
    const auto next = plan(3);
    EXPECT_EQ(ids_of(t1).size(), 4u);
    EXPECT_EQ(ids_of(t2).size(), 13u);
    EXPECT_EQ(ids_of(t3).size(), 22u);
    EXPECT_EQ(t3.input_tokens, multi_turn_prompt_tokens(shape, 3));
    EXPECT_EQ(t2.output_tokens, 5);
    const auto prefix = [](const PlannedRequest& planned, std::size_t k) {
        const auto ids = ids_of(planned);
        return std::vector<int>(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k));
    };
    EXPECT_EQ(prefix(t2, 4), ids_of(t1));
    EXPECT_EQ(prefix(t3, 13), ids_of(t2));
    EXPECT_NE(ids_of(next)[0], ids_of(t1)[0]);  // another conversation: its own from the first token
    EXPECT_EQ(t1.after, -1);
    EXPECT_EQ(t2.after, 0);
    EXPECT_EQ(t3.after, 1);
    EXPECT_EQ(next.after, -1);
    EXPECT_EQ(t1.tag, "turn 1");
    EXPECT_EQ(t3.tag, "turn 3");
    EXPECT_EQ(multi_turn_of(shape, 5), 3);
}

TEST(MultiTurnWorkload, ARadixCacheServesEachTurnWhatThePredictionSays) {
    MultiTurnShape shape;
    shape.turns = 4;
    shape.system_tokens = 30;
    shape.user_tokens = 20;
    shape.output_tokens = 25;
    const auto plan = multi_turn_workload(source_of(6, 0), shape);
    PrefixCache cache;
    for (std::uint64_t n = 0; n < 12; ++n) {
        const auto ids = ids_of(plan(n));
        const int turn = multi_turn_of(shape, n);
        ASSERT_EQ(static_cast<int>(ids.size()), multi_turn_prompt_tokens(shape, turn));
        EXPECT_NEAR(static_cast<double>(cache.serve(ids)) / static_cast<double>(ids.size()),
                    predicted_multi_turn_hit_share(shape, turn), 0.01)
            << n;
    }
    EXPECT_EQ(predicted_multi_turn_hit_share(shape, 1), 0);
    EXPECT_DOUBLE_EQ(predicted_multi_turn_hit_share(shape, 2), 50.0 / 95);
}

TEST(DatasetWorkload, PromptsGoAsTextInTurnEachTaggedForItsRequest) {
    DatasetShape shape;
    shape.prompts = {{"first prompt", 12}, {"second prompt", 0}};
    shape.default_output_tokens = 99;
    const auto plan = dataset_workload(source_of(7, 5), shape);
    const auto zero = nlohmann::json::parse(plan(0).body);
    const auto one = nlohmann::json::parse(plan(1).body);
    const auto two = nlohmann::json::parse(plan(2).body);
    EXPECT_EQ(zero["text"], dataset_prompt_tag(run_nonce_from_seed(7), 5) + "\nfirst prompt");
    EXPECT_EQ(zero["sampling_params"]["max_new_tokens"], 12);
    EXPECT_EQ(one["sampling_params"]["max_new_tokens"], 99);
    EXPECT_EQ(plan(1).output_tokens, 99);
    EXPECT_EQ(plan(0).input_tokens, 0);  // the server counts it
    // The third request sends the first prompt again, under a tag of its own.
    EXPECT_NE(two["text"], zero["text"]);
    EXPECT_EQ(two["text"].get<std::string>().substr(9), "first prompt");
    // Tags: 8 hex digits, unique within the run, different in another run, the first digit changing
    // from one request to the next.
    std::set<std::string> tags;
    for (std::uint64_t i = 0; i < 100'000; ++i) {
        const auto tag = dataset_prompt_tag(run_nonce_from_seed(7), i);
        ASSERT_EQ(tag.size(), 8u);
        EXPECT_TRUE(tags.insert(tag).second) << i;
        if (i > 0) {
            EXPECT_NE(tag[0], dataset_prompt_tag(run_nonce_from_seed(7), i - 1)[0]) << i;
        }
    }
    EXPECT_NE(dataset_prompt_tag(run_nonce_from_seed(7), 5), dataset_prompt_tag(run_nonce_from_seed(8), 5));
    shape.tag_prompts = false;
    EXPECT_EQ(nlohmann::json::parse(dataset_workload(source_of(7, 5), shape)(0).body)["text"],
              "first prompt");
}

}  // namespace
}  // namespace pdctl::load
