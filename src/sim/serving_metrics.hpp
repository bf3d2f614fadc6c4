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

    // A request finished with these token counts.
    void finished(long prompt_tokens, long generation_tokens);
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
};

}  // namespace pdsim
