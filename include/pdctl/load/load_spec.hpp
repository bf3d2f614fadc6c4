#pragma once
// One load level of one bench row: what to send, how (a closed loop of C streams, or Poisson arrivals
// at R a second), and for how long.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "pdctl/load/planned_request.hpp"

namespace pdctl::load {

struct LoadSpec {
    std::string url;  // http://HOST:PORT/generate of the router
    int input_tokens = 0;
    int output_tokens = 0;
    // Closed loop: this many requests in flight, each followed at once by the next. With `rate`: the
    // most in flight at once (0: no limit), as bench_serving's --max-concurrency.
    int concurrency = 1;
    std::optional<double> rate;  // requests per second, Poisson arrivals
    double burstiness = 1.0;     // the gaps' gamma shape (load/arrivals.hpp): 1 is Poisson
    int requests = 0;            // measured requests; 0: send until `duration` is over
    std::chrono::milliseconds duration{0};
    int warmup = 0;                                               // sent first and waited for, never counted
    std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // each request, start to end
    std::uint64_t seed = 1;  // the input token ids and the arrival times follow from it
    // The n-th request of the level (warm-ups first, then the measured ones, n counting from 0). Empty:
    // generate_request_body(input_tokens, output_tokens, seed, n).
    std::function<PlannedRequest(std::uint64_t n)> request;
    // false: "stream": false, one JSON answer (TTFT is then the whole request). For comparing request
    // rates with tools that cannot stream (wrk, docs/benchmarks.md); the bench always streams.
    bool stream = true;
    std::function<bool()> cancelled;  // polled between events: true ends the run (Ctrl-C)
};

}  // namespace pdctl::load
