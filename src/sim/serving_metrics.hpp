#pragma once
// The Prometheus metrics a simulated SGLang server exports on /metrics with --enable-metrics: the
// names and labels SGLang's SchedulerMetricsCollector and TokenizerMetricsCollector use, with values
// that follow the requests this server is serving.

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "sim/program_args.hpp"

namespace pdsim {

class ServingMetrics {
  public:
    // One /generate request in flight for as long as the guard lives.
    class Running {
      public:
        explicit Running(ServingMetrics& metrics) : metrics_(metrics) { ++metrics_.running_; }
        ~Running() { --metrics_.running_; }
        Running(const Running&) = delete;
        Running& operator=(const Running&) = delete;

      private:
        ServingMetrics& metrics_;
    };

    // A request finished with these token counts (`cached_tokens`: of its prompt, found cached).
    void finished(long prompt_tokens, long generation_tokens, long cached_tokens = 0);
    // A prefill batch computed `fresh` prompt tokens and took `cached` from the prefix cache
    // (sglang:cache_hit_rate, sglang:realtime_tokens_total{mode="prefill_compute"|"prefill_cache"}).
    void prefill_computed(long fresh, long cached);
    // The prefill sent a KV of `bytes` in `milliseconds` (newer SGLang's transfer histograms).
    void transfer_observed(double bytes, double milliseconds);
    // A streamed request's latencies as its server saw them (TokenizerMetricsCollector): the time to
    // its first token, and the intervals between the tokens after it (`tokens_after_first` of them
    // over `seconds_after_first`; each interval observed at their mean).
    void latencies_observed(double first_token_seconds, double seconds_after_first, int tokens_after_first);
    int running() const { return running_.load(); }
    // The KV path (SGLang's disaggregation metrics): a transfer failed, a bootstrap lookup failed, a
    // transfer of `bytes` took `milliseconds`.
    void transfer_failed() { ++transfer_failed_; }
    void bootstrap_failed() { ++bootstrap_failed_; }
    void transfer_done(double bytes, double milliseconds);
    // Requests waiting for a decode seat (the capacity model's queue), for num_queue_reqs.
    void set_queue_source(std::function<int()> queued) { queued_ = std::move(queued); }

    // The exposition text, as SGLang serves it.
    std::string prometheus(const ServerArgs& args);

  private:
    using Clock = std::chrono::steady_clock;
    std::atomic<int> running_{0};
    std::atomic<long> transfer_failed_{0};
    std::atomic<long> bootstrap_failed_{0};
    std::function<int()> queued_;
    double last_transfer_gb_s_ = 0;
    double last_transfer_ms_ = 0;
    std::mutex mutex_;
    long prompt_tokens_ = 0;
    long generation_tokens_ = 0;
    long requests_ = 0;
    std::deque<std::pair<Clock::time_point, long>> recent_;  // generation tokens of the last seconds
    long cached_tokens_ = 0;
    long prefill_compute_tokens_ = 0;
    long prefill_cache_tokens_ = 0;
    double cache_hit_rate_ = 0;
    bool transfers_observed_ = false;

  public:
    // A Prometheus histogram: cumulative buckets, sum, count.
    struct Histogram {
        std::vector<double> bounds;
        std::vector<long> counts;  // one per bound, plus +Inf
        double sum = 0;
        long count = 0;
        explicit Histogram(std::vector<double> upper_bounds);
        void observe(double value);
    };

  private:
    Histogram transfer_latency_ms_;
    Histogram transfer_total_mb_;
    Histogram transfer_speed_gb_s_;
    Histogram time_to_first_token_s_;
    Histogram inter_token_latency_s_;

  public:
    ServingMetrics();
};

}  // namespace pdsim
