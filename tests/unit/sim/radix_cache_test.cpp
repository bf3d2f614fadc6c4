// pdsim's radix prefix cache: longest cached prefix, shared prefixes, LRU eviction by a token budget.
#include "sim/radix_cache.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace pdsim {
namespace {

std::vector<CacheToken> seq(std::initializer_list<CacheToken> tokens) {
    return tokens;
}

TEST(RadixCache, AnEmptyCacheMatchesNothing) {
    RadixCache cache(100);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3})), 0u);
}

TEST(RadixCache, AFinishedPromptIsMatchedWholeAndByItsPrefixes) {
    RadixCache cache(100);
    cache.insert(seq({1, 2, 3, 4}));
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3, 4})), 4u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3, 4, 5, 6})), 4u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 9})), 2u);
    EXPECT_EQ(cache.match_prefix(seq({9, 1, 2})), 0u);
    EXPECT_EQ(cache.total_tokens(), 4u);
}

TEST(RadixCache, PromptsThatShareAPrefixStoreItOnce) {
    RadixCache cache(100);
    cache.insert(seq({1, 2, 3, 4}));
    cache.insert(seq({1, 2, 7, 8, 9}));
    EXPECT_EQ(cache.total_tokens(), 7u);  // 1 2 | 3 4 | 7 8 9
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3, 4})), 4u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 7, 8, 9, 10})), 5u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 5})), 2u);
    cache.insert(seq({1, 2, 3, 4}));  // again: nothing new
    EXPECT_EQ(cache.total_tokens(), 7u);
}

TEST(RadixCache, OverItsBudgetTheLeastRecentlyUsedLeafGoesFirst) {
    RadixCache cache(8);
    cache.insert(seq({1, 2, 3, 4}));
    cache.insert(seq({5, 6, 7, 8}));
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3, 4})), 4u);  // now the newest use
    cache.insert(seq({9, 10}));                            // 10 tokens: {5..8} is the oldest leaf
    EXPECT_EQ(cache.total_tokens(), 6u);
    EXPECT_EQ(cache.evicted_tokens(), 4u);
    EXPECT_EQ(cache.match_prefix(seq({5, 6, 7, 8})), 0u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3, 4})), 4u);
    EXPECT_EQ(cache.match_prefix(seq({9, 10})), 2u);
}

TEST(RadixCache, EvictingALeafCanMakeItsParentTheNextLeaf) {
    RadixCache cache(5);
    cache.insert(seq({1, 2, 3}));
    cache.insert(seq({1, 2, 4}));      // 1 2 | 3, 4: four tokens
    cache.insert(seq({7, 8, 9, 10}));  // eight: both short leaves, then their parent, go
    EXPECT_EQ(cache.total_tokens(), 4u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2})), 0u);
    EXPECT_EQ(cache.match_prefix(seq({7, 8, 9, 10})), 4u);
}

TEST(RadixCache, AZeroBudgetKeepsNothingAndResetForgetsAll) {
    RadixCache none(0);
    none.insert(seq({1, 2, 3}));
    EXPECT_EQ(none.match_prefix(seq({1, 2, 3})), 0u);

    RadixCache cache(100);
    cache.insert(seq({1, 2, 3}));
    cache.reset();
    EXPECT_EQ(cache.total_tokens(), 0u);
    EXPECT_EQ(cache.match_prefix(seq({1, 2, 3})), 0u);
}

TEST(RadixCacheTokens, TextIsCountedInWordsAndNeverEqualsAnId) {
    const auto words = text_tokens("the cat sat");
    ASSERT_EQ(words.size(), 3u);
    EXPECT_EQ(text_tokens("the cat"), std::vector<CacheToken>(words.begin(), words.begin() + 2));
    EXPECT_NE(words[0], words[1]);
    const std::vector<std::int64_t> ids = {0, 1, 2};
    for (CacheToken id : id_tokens(ids))
        for (CacheToken word : words) EXPECT_NE(id, word);
}

}  // namespace
}  // namespace pdsim
