#pragma once
// `pdctl bench --vs RUN` / `--baseline FILE`: each metric of each row and level against the same row
// and level of an earlier run; worse by more than the allowed fraction is a regression (exit 16), the
// CI gate of docs/bench.md. Medians and run throughput only: p90/p99 of a few requests move too much
// between two runs of an unchanged deployment to gate on. Pure.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/ops/bench_record.hpp"

namespace pdctl::ops {

struct MetricChange {
    std::string level;   // "medium c=1"
    std::string metric;  // "TTFT p50"
    double before = 0;
    double now = 0;
    bool higher_is_better = false;
    double worse_by = 0;  // fraction, negative when it got better
    bool regressed = false;
};

struct BenchComparison {
    std::string against;  // "run 20261204T193017Z-3f9c1e" or the file
    double max_regress = 0.10;
    std::vector<MetricChange> changes;
    std::vector<std::string> unmatched;  // levels of this run the baseline does not have
    bool regressed() const;
};

BenchComparison compare_bench(const std::vector<RecordedLevel>& baseline,
                              const std::vector<RecordedLevel>& current, double max_regress,
                              const std::string& against);

// "10%", "10", "0.1" are all ten percent; Failure (usage) naming the flag otherwise.
double parse_regress_fraction(const std::string& text);

}  // namespace pdctl::ops
