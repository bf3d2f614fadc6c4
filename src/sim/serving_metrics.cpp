#include "sim/serving_metrics.hpp"

#include <fmt/format.h>

namespace pdsim {
namespace {

// SGLang's scheduler sizes its pool from the GPU memory; pdsim's log says 1000000 tokens.
constexpr double kMaxTotalTokens = 1000000;
// The window gen_throughput averages over (SGLang's decode log interval is 40 batches; seconds here).
constexpr auto kThroughputWindow = std::chrono::seconds(5);

void metric(std::string& out, const std::string& name, const char* type, const char* help,
            const std::string& labels, double value) {
    out +=
        fmt::format("# HELP {} {}\n# TYPE {} {}\n{}{{{}}} {}\n", name, help, name, type, name, labels, value);
}

void histogram(std::string& out, const std::string& name, const char* help, const std::string& labels,
               const ServingMetrics::Histogram& h) {
    out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
    long cumulative = 0;
    for (std::size_t i = 0; i <= h.bounds.size(); ++i) {
        cumulative += h.counts[i];
        const std::string le = i < h.bounds.size() ? fmt::format("{}", h.bounds[i]) : "+Inf";
        out += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels, le, cumulative);
    }
    out += fmt::format("{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, labels, h.sum, name, labels, h.count);
}

}  // namespace

ServingMetrics::Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), counts(bounds.size() + 1, 0) {}

void ServingMetrics::Histogram::observe(double value) {
    std::size_t i = 0;
    while (i < bounds.size() && value > bounds[i]) ++i;
    ++counts[i];
    sum += value;
    ++count;
}

// SGLang's buckets for these (python/sglang/srt/metrics/collector.py, SchedulerMetricsCollector).
ServingMetrics::ServingMetrics()
    : transfer_latency_ms_({1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}),
      transfer_total_mb_({1, 5, 10, 50, 100, 500, 1000, 5000, 10000}),
      transfer_speed_gb_s_({0.1, 0.5, 1, 5, 10, 25, 50, 100, 200, 400}),
      // TokenizerMetricsCollector's default buckets for these two (the same file).
      time_to_first_token_s_({0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400}),
      inter_token_latency_s_({0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025,
                              0.030, 0.035, 0.040, 0.060, 0.080, 0.100, 0.200, 0.400,
                              0.600, 0.800, 1.0,   2.0,   4.0,   6.0,   8.0}) {}

void ServingMetrics::latencies_observed(double first_token_seconds, double seconds_after_first,
                                        int tokens_after_first) {
    std::lock_guard lock(mutex_);
    time_to_first_token_s_.observe(first_token_seconds);
    for (int i = 0; i < tokens_after_first; ++i)
        inter_token_latency_s_.observe(seconds_after_first / tokens_after_first);
}

void ServingMetrics::prefill_computed(long fresh, long cached) {
    std::lock_guard lock(mutex_);
    prefill_compute_tokens_ += fresh;
    prefill_cache_tokens_ += cached;
    cache_hit_rate_ =
        fresh + cached > 0 ? static_cast<double>(cached) / static_cast<double>(fresh + cached) : 0;
}

void ServingMetrics::transfer_observed(double bytes, double milliseconds) {
    std::lock_guard lock(mutex_);
    transfers_observed_ = true;
    transfer_latency_ms_.observe(milliseconds);
    transfer_total_mb_.observe(bytes / 1e6);
    transfer_speed_gb_s_.observe(milliseconds > 0 ? bytes / 1e9 / (milliseconds / 1e3) : 0);
}

void ServingMetrics::finished(long prompt_tokens, long generation_tokens, long cached_tokens) {
    std::lock_guard lock(mutex_);
    cached_tokens_ += cached_tokens;
    prompt_tokens_ += prompt_tokens;
    generation_tokens_ += generation_tokens;
    ++requests_;
    recent_.emplace_back(Clock::now(), generation_tokens);
}

void ServingMetrics::transfer_done(double bytes, double milliseconds) {
    std::lock_guard lock(mutex_);
    last_transfer_ms_ = milliseconds;
    last_transfer_gb_s_ = milliseconds > 0 ? bytes / 1e9 / (milliseconds / 1e3) : 0;
}

std::string ServingMetrics::prometheus(const ServerArgs& args) {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    while (!recent_.empty() && now - recent_.front().first > kThroughputWindow) recent_.pop_front();
    long window_tokens = 0;
    for (const auto& [when, tokens] : recent_) window_tokens += tokens;
    const int running = running_.load();
    const std::string labels =
        fmt::format("engine_type=\"unified\",model_name=\"{}\",pp_rank=\"0\",tp_rank=\"0\"",
                    args.served_model_name.empty() ? args.model_path : args.served_model_name);
    std::string out;
    metric(out, "sglang:num_running_reqs", "gauge", "The number of running requests.", labels, running);
    metric(out, "sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue.", labels,
           queued_ ? queued_() : 0);
    // Each running request holds its prompt and output in the KV pool; pdsim's requests are short.
    const double used = running * 256.0;
    metric(out, "sglang:num_used_tokens", "gauge", "The number of used tokens.", labels, used);
    metric(out, "sglang:token_usage", "gauge", "The token usage.", labels, used / kMaxTotalTokens);
    metric(out, "sglang:gen_throughput", "gauge", "The generation throughput (token/s).", labels,
           static_cast<double>(window_tokens) / std::chrono::duration<double>(kThroughputWindow).count());
    metric(out, "sglang:max_total_num_tokens", "gauge",
           "Maximum total number of tokens in the KV cache pool.", labels, kMaxTotalTokens);
    if (args.prefill()) {
        metric(out, "sglang:num_prefill_inflight_queue_reqs", "gauge",
               "The number of requests in the prefill inflight queue.", labels, 0);
    }
    if (args.decode()) {
        metric(out, "sglang:num_decode_transfer_queue_reqs", "gauge",
               "The number of requests in the decode transfer queue.", labels, 0);
    }
    if (args.pd()) {
        metric(out, "sglang:num_transfer_failed_reqs_total", "counter",
               "The number of requests whose KV transfer failed.", labels,
               static_cast<double>(transfer_failed_.load()));
        metric(out, "sglang:num_bootstrap_failed_reqs_total", "counter",
               "The number of requests whose bootstrap failed.", labels,
               static_cast<double>(bootstrap_failed_.load()));
    }
    if (args.decode()) {
        metric(out, "sglang:kv_transfer_speed_gb_s", "gauge", "The KV transfer speed in GB/s.", labels,
               last_transfer_gb_s_);
        metric(out, "sglang:kv_transfer_latency_ms", "gauge", "The KV transfer latency in ms.", labels,
               last_transfer_ms_);
    }
    if (time_to_first_token_s_.count > 0) {
        histogram(out, "sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                  labels, time_to_first_token_s_);
        histogram(out, "sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                  labels, inter_token_latency_s_);
    }
    metric(out, "sglang:prompt_tokens_total", "counter", "Number of prefill tokens processed.", labels,
           static_cast<double>(prompt_tokens_));
    metric(out, "sglang:generation_tokens_total", "counter", "Number of generation tokens processed.", labels,
           static_cast<double>(generation_tokens_));
    metric(out, "sglang:num_requests_total", "counter", "Number of requests processed.", labels,
           static_cast<double>(requests_));
    metric(out, "sglang:cached_tokens_total", "counter", "Number of cached prompt tokens.", labels,
           static_cast<double>(cached_tokens_));
    if (!args.decode()) {
        metric(out, "sglang:cache_hit_rate", "gauge", "The prefix cache hit rate.", labels, cache_hit_rate_);
        const std::string help = "Total number of tokens processed (updated on each log interval).";
        out += fmt::format(
            "# HELP sglang:realtime_tokens_total {}\n# TYPE sglang:realtime_tokens_total counter\n", help);
        out += fmt::format("sglang:realtime_tokens_total{{{},mode=\"prefill_compute\"}} {}\n", labels,
                           prefill_compute_tokens_);
        out += fmt::format("sglang:realtime_tokens_total{{{},mode=\"prefill_cache\"}} {}\n", labels,
                           prefill_cache_tokens_);
        out += fmt::format("sglang:realtime_tokens_total{{{},mode=\"decode\"}} {}\n", labels,
                           args.prefill() ? 0 : generation_tokens_);
    }
    // Newer SGLang: histograms of every transfer the prefill sent (none before the first).
    if (args.prefill() && transfers_observed_) {
        histogram(out, "sglang:kv_transfer_latency_ms", "Histogram of KV cache transfer latency in ms.",
                  labels, transfer_latency_ms_);
        histogram(out, "sglang:kv_transfer_total_mb", "Histogram of KV cache transfer size in MB.", labels,
                  transfer_total_mb_);
        histogram(out, "sglang:kv_transfer_speed_gb_s", "Histogram of KV cache transfer speed in GB/s.",
                  labels, transfer_speed_gb_s_);
    }
    return out;
}

}  // namespace pdsim
