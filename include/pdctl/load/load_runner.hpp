#pragma once
// Sends one load level's requests (load/load_spec.hpp) and times every streamed token. One thread
// drives every stream through libcurl's multi interface (non-blocking sockets, one poll), so a
// 2-core machine holds hundreds of concurrent streams and the time a token is read is the time it
// arrived (docs/benchmarks.md measures what the client adds). The only HTTP client of pdctl besides
// health/http_prober: that one asks one question at a time, this one holds many streams open.

#include <functional>
#include <vector>

#include "pdctl/load/load_spec.hpp"
#include "pdctl/load/request_record.hpp"

namespace pdctl::load {

// Where a run is, for a live progress line.
struct LoadProgress {
    int done = 0;  // measured requests finished
    int ok = 0;
    int failed = 0;
    int in_flight = 0;
    double elapsed_s = 0;
    double p50_e2e_s = 0;  // of the successful requests so far
};

struct LoadResult {
    std::vector<RequestRecord> records;  // the measured requests, in the order they were sent
    double duration_s = 0;               // first measured request sent -> last one finished
    bool cancelled = false;
};

// `progress` (may be empty) is called about every 250 ms from the sending thread.
LoadResult run_load(const LoadSpec& spec, const std::function<void(const LoadProgress&)>& progress);

}  // namespace pdctl::load
