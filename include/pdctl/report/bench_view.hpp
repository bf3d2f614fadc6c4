#pragma once
// `pdctl bench` for people (one table row per request shape and load level, the KV path's counters, the
// verdict) and for programs (one JSON document with every number, docs/bench.md).

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_verb.hpp"
#include "pdctl/report/junit.hpp"

namespace pdctl::report {

std::string render_bench(const ops::BenchReport& report);
// The record (ops/bench_record.hpp), with the comparison when there was one.
nlohmann::json bench_to_json(const ops::BenchReport& report, const ops::BenchComparison* comparison);
// Each metric against the baseline, worst first; the regressions marked.
std::string render_bench_comparison(const ops::BenchComparison& comparison);
// One test case per row and level: failed requests, or a regressed metric, fail it.
JunitSuite bench_to_junit(const ops::BenchReport& report, const ops::BenchComparison* comparison,
                          const std::string& timestamp, double seconds);
// The live line on a terminal: "medium  c=4  37/40 done  0 failed  p50 e2e 3.21 s".
std::string render_bench_progress(const ops::BenchProgress& progress);

// What `pdctl bench` prints at the end of a run: the report, its comparison when there was a baseline,
// and the run's id to compare a later run with; --json: bench_to_json with the id as "run".
std::string render_bench_outcome(const ops::BenchOutcome& outcome);
nlohmann::json bench_outcome_to_json(const ops::BenchOutcome& outcome);

}  // namespace pdctl::report
