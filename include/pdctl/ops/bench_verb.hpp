#pragma once
// `pdctl bench` as one use case: the baseline looked up before any load is sent, the run, its
// comparison with the baseline, the verdict (the exit code) and the run's journal record. The CLI only
// reads flags and renders what this returns.

#include <functional>
#include <optional>
#include <string>

#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// What a run is compared with: a journaled run (`--vs RUN|last`), or a record kept as a file
// (`--baseline FILE`), or nothing.
struct BenchEvidenceRequest {
    std::string vs;
    std::string baseline_file;
    double max_regress = 0.10;
};

struct BenchOutcome {
    BenchReport report;
    std::optional<BenchComparison> comparison;
    ExitCode code = ExitCode::kOk;  // 0, 15 (failed), 16 (regressed), or interrupted
    std::string run_id;             // the journal's id of this run
};

// Throws Failure (usage) before any load when both a run and a file are named, or the baseline is not
// there.
BenchOutcome run_bench_verb(const Deployment& deployment, const BenchSpec& spec,
                            const BenchEvidenceRequest& evidence,
                            const std::function<void(const BenchProgress&)>& progress);

ExitCode bench_verdict(const BenchReport& report, const BenchComparison* comparison);

}  // namespace pdctl::ops
