#pragma once
// What one streamed request through the router yielded: its timings and, if it failed, why. The
// definitions are sglang.bench_serving's (docs/bench.md), so numbers compare with it.

#include <string>
#include <vector>

namespace pdctl::load {

struct RequestRecord {
    int input_tokens = 0;
    int output_tokens = 0;      // meta_info.completion_tokens of the last chunk
    double sent_s = 0;          // when it was sent, seconds since the run began
    double ttft_s = 0;          // sent -> first chunk that carried a token
    double e2e_s = 0;           // sent -> end of the stream
    std::vector<double> itl_s;  // gaps between token-bearing chunks; a chunk of k tokens counts k gaps of 1/k
    // What the server said of the prompt (meta_info of the last chunk): the tokens it counted and how many
    // of them its prefix cache served. -1: the answer did not say.
    int prompt_tokens = -1;
    int cached_tokens = -1;
    std::string tag;    // the request's place in its workload ("turn 2"), from PlannedRequest; empty: none
    std::string error;  // empty: succeeded
    bool ok() const { return error.empty(); }
    // TPOT: (e2e - TTFT) / (output tokens - 1); 0 for a single-token answer.
    double tpot_s() const { return output_tokens > 1 ? (e2e_s - ttft_s) / (output_tokens - 1) : 0; }
};

}  // namespace pdctl::load
