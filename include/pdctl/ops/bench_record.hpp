#pragma once
// A bench run as data: the document `pdctl --json bench` prints, the journal keeps (one `bench` line
// per run) and `--vs` / `--baseline` read back to compare with. One format, so a CI job can keep the
// JSON of a good run as its baseline file. Pure.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/bench.hpp"

namespace pdctl::ops {

inline constexpr int kBenchRecordFormat = 1;

nlohmann::json bench_record(const BenchReport& report);

// One row at one load level of a recorded run, by the name `--vs` matches levels with.
struct RecordedLevel {
    std::string key;         // "medium c=4", "long 8/s"
    nlohmann::json numbers;  // the level's object of the record
};

// The levels of a record; throws Failure (usage) naming `where` when it is not a bench record.
std::vector<RecordedLevel> recorded_levels(const nlohmann::json& record, const std::string& where);

// "medium c=4" / "long 8/s"
std::string level_key(const std::string& row, int concurrency, std::optional<double> rate);

}  // namespace pdctl::ops
