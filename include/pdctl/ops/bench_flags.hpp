#pragma once
// `pdctl bench`'s flags as given, and the one BenchSpec they make with a bench file (--file): what the
// file sets holds unless a flag says otherwise (a soak's length is always --soak's), and the
// combinations that cannot go together are refused before anything is sent.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/bench.hpp"

namespace pdctl::ops {

struct BenchFlags {
    std::string scenario;  // validation | shared-prefix | multi-turn
    std::string file;      // --file: a bench file (docs/bench.md)
    int input = 0;
    int output = 0;
    std::vector<int> concurrency;
    std::string dataset;  // --dataset FILE.jsonl
    std::string rate;     // 8 | 1,2,4,8 | inf | ramp
    double burstiness = 1.0;
    std::string slo;
    int repeat = 1;
    bool flush_cache = false;
    std::string base_url;
    bool allow_unverified = false;
    int requests = 0;
    std::string duration;
    std::string soak;
    int warmup = 2;
    bool warmup_given = false;  // --warmup on the command line, even as its default
    std::string timeout = "10m";
    std::optional<std::uint64_t> seed;  // none: a new one every run
    std::string router;
};

// Reads --file and --dataset. Throws Failure (usage) naming the flags that cannot go together or a
// value that cannot be read, and config::ConfigError for a bench file that is not one.
BenchSpec bench_spec(BenchFlags options);

}  // namespace pdctl::ops
