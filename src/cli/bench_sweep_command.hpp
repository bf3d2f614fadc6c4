#pragma once
// `pdctl bench --sweep A.yaml B.yaml ...`: the flags of a sweep, and the step from them to the use case
// (ops/bench_sweep.hpp) and its table, JSON and chart.

#include <string>
#include <vector>

#include "context.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/sweep_ranking.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

struct SweepFlags {
    std::vector<std::string> configs;
    ops::SweepObjectives objectives;
    std::string svg;
    std::string html;
};

ExitCode sweep_command(const GlobalOptions& global, const SweepFlags& flags, const ops::BenchSpec& spec);

}  // namespace pdctl::cli
