#pragma once
// The scheduler's own throughput lines on rank 0, as SGLang logs them
// (python/sglang/srt/managers/scheduler_metrics_mixin.py, log_prefill_stats / log_decode_stats):
// - "Prefill batch, ..." once per prefill batch (pdsim computes one request per batch), where
//   "input throughput (token/s)" (prefill servers only) is the PREVIOUS batch's new tokens over the
//   time since the previous prefill line: it says how busy the prefill was, not how fast one prompt
//   was computed;
// - "Decode batch, ..." every --decode-log-interval (40) decode forward passes, where
//   "gen throughput (token/s)" is the tokens decoded since the last such line over the time since it.
// A pdsim decode step is per request, not per batch: a token produced while B requests decode
// counts as 1/B of a forward pass, so 40 passes are 40 × B tokens, as on a real batch.

#include <chrono>
#include <mutex>

#include "sim/program_args.hpp"

namespace pdsim {

class SchedulerLog {
  public:
    explicit SchedulerLog(const ServerArgs& args);

    // A prefill batch of one request starts: `new_tokens` to compute, `cached_tokens` from the cache.
    void prefill_batch(int new_tokens, int cached_tokens, int running, int queued);
    // One decode token produced while `batch` requests decode.
    void decode_token(int batch, int running, int queued);

  private:
    using Clock = std::chrono::steady_clock;
    const ServerArgs& args_;
    std::mutex mutex_;
    Clock::time_point last_prefill_ = Clock::now();
    long last_prefill_tokens_ = 0;
    Clock::time_point last_decode_ = Clock::now();
    double passes_ = 0;
    long passes_logged_ = 0;
    long generated_ = 0;
};

}  // namespace pdsim
