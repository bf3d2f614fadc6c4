#pragma once
// The numbers of one bench row at one load level, from its requests: the quantities
// sglang.bench_serving reports, with the same definitions (docs/bench.md). Pure.

#include <string>
#include <vector>

#include "pdctl/load/request_record.hpp"

namespace pdctl::load {

struct Percentiles {
    double mean = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
};

// numpy.percentile's default (linear interpolation between closest ranks); zeros when empty.
Percentiles percentiles(std::vector<double> values);
double percentile(std::vector<double> values, double q);  // q in [0, 100]

struct ErrorGroup {
    std::string error;  // the first request's own text
    int count = 0;
};

struct RowStats {
    int ok = 0;
    int failed = 0;
    std::vector<ErrorGroup> errors;  // by masked text (load::error_group), most frequent first
    double duration_s = 0;           // wall time of the measured requests
    // Latencies of the successful requests, seconds.
    Percentiles e2e;
    Percentiles ttft;
    Percentiles itl;   // every inter-token gap of every request
    Percentiles tpot;  // per request with > 1 output token
    // Per request: input tokens / TTFT (the prefill's rate as a client sees it) and 1 / TPOT (decode).
    Percentiles input_tok_s;
    Percentiles output_tok_s;
    // Over the run: tokens (of successful requests) / duration.
    double request_throughput = 0;
    double input_throughput = 0;
    double output_throughput = 0;
    double output_throughput_per_gpu = 0;  // 0 when the GPU count is unknown
    long long input_tokens = 0;
    long long output_tokens = 0;
    // The prefix cache, as the server told each successful request (meta_info): of `counted_prompt_tokens`
    // (the prompts it counted, over the requests that said), `cached_tokens` came from its cache.
    long long cached_tokens = 0;
    long long counted_prompt_tokens = 0;
    int cache_reported = 0;  // requests whose answer carried cached_tokens
    double cached_share() const {
        return counted_prompt_tokens > 0 ? static_cast<double>(cached_tokens) / counted_prompt_tokens : 0;
    }
};

// `gpus`: every GPU of the deployment's prefill and decode groups (0: unknown).
RowStats summarize(const std::vector<RequestRecord>& records, double duration_s, int gpus);

}  // namespace pdctl::load
