#pragma once
// The prefix cache of one simulated server, shared by its request threads: SGLang's radix cache as
// the scheduler uses it (python/sglang/srt/managers/scheduler.py, mem_cache/radix_cache.py).
// - a new request matches at most all but the last token of its prompt: SGLang keeps one token to
//   compute so the forward has logits to sample from (Req.adjust_max_prefix_ids);
// - a finished request's tokens are inserted (prompt, and on a plain server its output but the last
//   token, as cache_finished_req does);
// - --disable-radix-cache: nothing is kept, every match is 0 (SGLang then uses a ChunkCache);
// - flush() empties it, as /flush_cache resets the tree.

#include <cstddef>
#include <mutex>
#include <span>

#include "sim/radix_cache.hpp"

namespace pdsim {

class PromptCache {
  public:
    PromptCache(std::size_t token_budget, bool enabled)
        : tree_(enabled ? token_budget : 0), enabled_(enabled) {}

    bool enabled() const { return enabled_; }

    // The tokens of `prompt` the prefill does not compute again.
    std::size_t cached_prefix(std::span<const CacheToken> prompt) {
        if (!enabled_ || prompt.empty()) return 0;
        std::lock_guard lock(mutex_);
        return tree_.match_prefix(prompt.first(prompt.size() - 1));
    }
    void insert(std::span<const CacheToken> tokens) {
        if (!enabled_) return;
        std::lock_guard lock(mutex_);
        tree_.insert(tokens);
    }
    void flush() {
        std::lock_guard lock(mutex_);
        tree_.reset();
    }
    std::size_t cached_tokens() {
        std::lock_guard lock(mutex_);
        return tree_.total_tokens();
    }
    std::size_t evicted_tokens() {
        std::lock_guard lock(mutex_);
        return tree_.evicted_tokens();
    }

  private:
    std::mutex mutex_;
    RadixCache tree_;
    bool enabled_;
};

}  // namespace pdsim
