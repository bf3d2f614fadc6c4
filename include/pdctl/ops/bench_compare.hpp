#pragma once
// `pdctl bench --vs RUN` / `--baseline FILE`: each metric of each row and level against the same row
// (by name and shape) and level of an earlier run: the CI gate of docs/bench.md ("The gate"). A metric
// regresses (exit 16) only when its median got worse by more than the allowed fraction AND the change
// is significant: a one-sided Mann-Whitney U test on the per-request samples both records keep, at
// kGateAlpha, or for the run's output throughput a one-sided Welch t test on the per-run values when
// each side has at least kGateMinRuns runs (`--repeat`). A record without samples (an older one) is
// compared median against median, and the comparison says it has no interval. Medians and throughput
// only: p90/p99 of a few requests move too much between two runs of an unchanged deployment. Pure.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_record.hpp"

namespace pdctl::ops {

// A regression must be this unlikely under "nothing changed" (one-sided).
inline constexpr double kGateAlpha = 0.01;
// Per-run throughput is tested from this many runs a side on; fewer: reported, not gated.
inline constexpr int kGateMinRuns = 3;

// How a change was judged.
enum class ChangeTest {
    kRanks,     // Mann-Whitney U on per-request samples
    kRuns,      // Welch t on per-run values
    kPoint,     // no samples on one side: median against median, as before samples were kept
    kNotGated,  // samples too few to ever be significant: reported only
};

struct MetricChange {
    std::string level;   // "medium c=1"
    std::string metric;  // "TTFT p50"
    double before = 0;
    double now = 0;
    bool higher_is_better = false;
    double worse_by = 0;  // fraction, negative when it got better
    ChangeTest test = ChangeTest::kPoint;
    int before_samples = 0;  // requests (or runs) each side the test saw
    int now_samples = 0;
    std::optional<double> p_value;  // one-sided, "now is worse"
    // The interval of worse_by that inverts the test (confidence 1 - 2 alpha, so its low end is the
    // one-sided bound at alpha); absent for a point comparison. An end may be infinite: no bound.
    std::optional<double> worse_low;
    std::optional<double> worse_high;
    std::string why_not_gated;  // kNotGated / kPoint: in words
    bool regressed = false;
};

struct BenchComparison {
    std::string against;  // "run 20261204T193017Z-3f9c1e" or the file
    double max_regress = 0.10;
    double alpha = kGateAlpha;
    std::vector<MetricChange> changes;
    std::vector<std::string> unmatched;  // "medium c=4: not in the baseline"
    bool without_interval = false;       // some level was compared point against point
    bool regressed() const;
};

BenchComparison compare_bench(const std::vector<RecordedLevel>& baseline,
                              const std::vector<RecordedLevel>& current, double max_regress,
                              const std::string& against);

// What makes `baseline` (a bench record) not comparable with a run of `spec`: the scenario, and each
// row by name and shape ("row medium: input 1680 in the baseline, 2048 now"). Empty: comparable.
std::vector<std::string> bench_shape_differences(const nlohmann::json& baseline, const BenchSpec& spec);

// "10%", "10", "0.1" are all ten percent; Failure (usage) naming the flag otherwise.
double parse_regress_fraction(const std::string& text);

}  // namespace pdctl::ops
