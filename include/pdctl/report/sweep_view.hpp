#pragma once
// `pdctl bench --sweep` for people (the standings: one block per config, best first, one line per row
// and load level) and for programs (one JSON document: each config's start, bench run and record, and
// the standings).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/ops/bench_sweep.hpp"
#include "pdctl/ops/sweep_ranking.hpp"

namespace pdctl::report {

std::string render_sweep(const std::vector<ops::SweepEntry>& entries,
                         const std::vector<ops::SweepStanding>& standings,
                         const ops::SweepObjectives& objectives);
nlohmann::json sweep_to_json(const std::vector<ops::SweepEntry>& entries,
                             const std::vector<ops::SweepStanding>& standings,
                             const ops::SweepObjectives& objectives);

}  // namespace pdctl::report
