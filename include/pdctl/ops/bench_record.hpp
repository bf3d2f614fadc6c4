#pragma once
// A bench run as data: the document `pdctl --json bench` prints, the journal keeps (one `bench` line
// per run) and `--vs` / `--baseline` read back to compare with. One format, so a CI job can keep the
// JSON of a good run as its baseline file. Each level also carries sglang.bench_serving's own field
// names where they mean the same thing (completed, duration, median_ttft_ms, ...), in its units, and the
// per-request samples the gate tests (bench_compare.hpp). Pure.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/bench.hpp"

namespace pdctl::ops {

// Still 1: the samples and bench_serving's names were added beside every field a format-1 reader knows,
// and a record without samples is still compared (median against median).
inline constexpr int kBenchRecordFormat = 1;
// Per-request samples kept per level: all of them up to this, else a seeded uniform subsample of this
// many (a soak has thousands of requests; a rank test needs a few hundred to see any change that
// matters, and each kept request costs the journal some 60 bytes).
inline constexpr int kBenchSamplesKept = 500;

nlohmann::json bench_record(const BenchReport& report);

// One row at one load level of a recorded run, by the name `--vs` matches levels with.
struct RecordedLevel {
    std::string key;  // "medium c=4", "long 8/s"
    std::string row;  // its row's name and shape: levels match only when these do too
    int input_tokens = 0;
    int output_tokens = 0;
    nlohmann::json numbers;  // the level's object of the record
};

// The levels of a record; throws Failure (usage) naming `where` when it is not a bench record.
std::vector<RecordedLevel> recorded_levels(const nlohmann::json& record, const std::string& where);

// "medium c=4" / "long 8/s"
std::string level_key(const std::string& row, int concurrency, std::optional<double> rate);

}  // namespace pdctl::ops
