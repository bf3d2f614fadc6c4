#pragma once
// The prefix cache of a simulated SGLang server, shaped like SGLang's RadixCache
// (python/sglang/srt/mem_cache/radix_cache.py): a radix tree of the token sequences of finished
// requests, where each edge holds a run of tokens. A new prompt's longest cached prefix is what its
// prefill does not compute again. Memory is bounded by a token budget: past it, the least recently
// used leaves are evicted first, whole, as upstream's evict() pops leaves by last access time.
// Pure: no clock, no threads (the caller locks); "time" is a counter that every match and insert
// advances, so the order of use is exact and tests are deterministic.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace pdsim {

using CacheToken = std::uint64_t;

class RadixCache {
  public:
    // `token_budget`: the most tokens the tree keeps; 0 keeps nothing (every match is 0).
    explicit RadixCache(std::size_t token_budget);
    ~RadixCache();
    RadixCache(const RadixCache&) = delete;
    RadixCache& operator=(const RadixCache&) = delete;

    // How many leading tokens of `tokens` are cached; marks the matched path as just used.
    std::size_t match_prefix(std::span<const CacheToken> tokens);
    // Keeps `tokens` (sharing whatever prefix is already there), then evicts down to the budget.
    void insert(std::span<const CacheToken> tokens);
    // Forgets everything (SGLang's /flush_cache resets the tree).
    void reset();

    std::size_t total_tokens() const { return total_tokens_; }
    std::size_t evicted_tokens() const { return evicted_tokens_; }  // since start, for /metrics
    std::size_t token_budget() const { return token_budget_; }

  private:
    struct Node;
    void evict_to_budget();

    std::unique_ptr<Node> root_;
    std::size_t token_budget_;
    std::size_t total_tokens_ = 0;
    std::size_t evicted_tokens_ = 0;
    std::uint64_t clock_ = 0;
};

// The tokens pdsim's servers see in a prompt: the ids of `input_ids`, or for `text` its words split
// at every space (so their count is the prompt_tokens the server reports). Words are hashed, tagged
// apart from ids so a word never equals an id.
std::vector<CacheToken> text_tokens(std::string_view text);
std::vector<CacheToken> id_tokens(std::span<const std::int64_t> ids);

}  // namespace pdsim
