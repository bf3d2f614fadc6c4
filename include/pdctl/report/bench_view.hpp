#pragma once
// `pdctl bench` for people (one table row per request shape and load level, the KV path's counters, the
// verdict) and for programs (one JSON document with every number, docs/bench.md).

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/bench.hpp"

namespace pdctl::report {

std::string render_bench(const ops::BenchReport& report);
nlohmann::json bench_to_json(const ops::BenchReport& report);
// The live line on a terminal: "medium  c=4  37/40 done  0 failed  p50 e2e 3.21 s".
std::string render_bench_progress(const ops::BenchProgress& progress);

}  // namespace pdctl::report
