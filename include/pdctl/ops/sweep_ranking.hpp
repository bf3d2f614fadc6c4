#pragma once
// `pdctl bench --sweep`: which config serves best, from the bench records of each (ops/bench_record.hpp).
// Pure, so a sweep is ranked the same way whether it just ran or was read back from the journal.
//
// A config's score is, for each row of the bench, the most output tokens per second per GPU that one of
// its load levels reached without a failed request and within the latency objectives (p90 TTFT, p90
// ITL, when given), combined over rows by their geometric mean: a ratio that is good on long inputs and
// bad on short ones does not win on one row alone. Configs rank by score, highest first.
//
// A point (one row at one level of one config) is on the Pareto front of its row when no other point
// of the row has at least its throughput per GPU and at most its p90 TTFT and p90 ITL, better in one.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pdctl::ops {

struct SweepObjectives {
    std::optional<double> ttft_p90_s;  // --slo-ttft
    std::optional<double> itl_p90_s;   // --slo-itl
};

// One config of the sweep as it ended: its bench record, or why there is none (its start failed).
struct SweepCandidate {
    std::string config;  // as given on the command line
    std::string pd;      // "1P:3D", from its plan (the record says it too, when there is one)
    nlohmann::json record;
    std::string failure;
};

struct SweepPoint {
    std::string row;
    std::string level;   // "c=16", "8/s"
    double per_gpu = 0;  // output tokens/s per GPU
    double ttft_p90_s = 0;
    double itl_p90_s = 0;
    double e2e_p50_s = 0;
    int ok = 0;
    int failed = 0;
    bool meets_objectives = false;  // no failed request, within the objectives
    bool pareto = false;
};

struct SweepStanding {
    std::string config;
    std::string pd;  // "2P:2D"
    int gpus = 0;
    double score = 0;      // output tok/s per GPU: the geometric mean over rows of each row's best
    std::string no_score;  // why the score is 0: the start failed, or a row met no objective
    std::vector<SweepPoint> points;
};

// The standings, best first (ties keep the command line's order).
std::vector<SweepStanding> rank_sweep(const std::vector<SweepCandidate>& candidates,
                                      const SweepObjectives& objectives);

}  // namespace pdctl::ops
