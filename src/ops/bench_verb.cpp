#include "pdctl/ops/bench_verb.hpp"

#include <fmt/format.h>

#include "pdctl/engine/clock.hpp"
#include "pdctl/ops/bench_evidence.hpp"
#include "pdctl/ops/bench_record.hpp"

namespace pdctl::ops {
namespace {

// The journal's one line for the run ("... TTFT p50 of medium c=1 worse by 20.1% against run ...").
std::string outcome_line(const BenchReport& report, const std::optional<BenchComparison>& comparison) {
    if (!report.passed()) return report.problems.front();
    int requests = 0;
    for (const auto& row : report.rows)
        for (const auto& level : row.levels) requests += level.stats.ok;
    std::string text = fmt::format("{} requests, none failed", requests);
    // The saturation point is what a ramp was run for: `pdctl history` shows it without the record.
    if (report.spec.ramp)
        text += report.saturation_rps ? fmt::format("; saturation {:.3g} req/s", *report.saturation_rps)
                                      : std::string("; no rate held the SLO");
    if (!comparison) return text;
    const MetricChange* worst = nullptr;
    for (const auto& change : comparison->changes)
        if (change.regressed && (worst == nullptr || change.worse_by > worst->worse_by)) worst = &change;
    if (worst == nullptr) return text + "; no regression against " + comparison->against;
    return fmt::format("{}; {} of {} worse by {:.1f}% against {}", text, worst->metric, worst->level,
                       worst->worse_by * 100, comparison->against);
}

}  // namespace

ExitCode bench_verdict(const BenchReport& report, const BenchComparison* comparison) {
    if (report.cancelled) return ExitCode::kInterrupted;
    if (!report.passed()) return ExitCode::kBenchFailed;
    if (comparison && comparison->regressed()) return ExitCode::kBenchRegressed;
    return ExitCode::kOk;
}

BenchOutcome run_bench_verb(const Deployment& deployment, const BenchSpec& spec,
                            const BenchEvidenceRequest& evidence,
                            const std::function<void(const BenchProgress&)>& progress) {
    // Ctrl-C ends the level under way and reports what was measured.
    engine::install_interrupt_handlers();
    if (!evidence.vs.empty() && !evidence.baseline_file.empty())
        throw Failure(ExitCode::kUsage,
                      "--vs and --baseline both name what to compare with: give one of them");
    // The baseline first: a run to compare with that is not there ends the command before any load.
    std::optional<BenchBaseline> baseline;
    if (!evidence.vs.empty()) baseline = baseline_from_journal(deployment, evidence.vs, spec);
    if (!evidence.baseline_file.empty()) baseline = baseline_from_file(evidence.baseline_file, spec);

    BenchJournal journal(deployment);
    BenchOutcome outcome;
    outcome.report = run_bench(deployment, spec, progress);
    if (baseline)
        outcome.comparison = compare_bench(recorded_levels(baseline->record, baseline->against),
                                           recorded_levels(bench_record(outcome.report), "this run"),
                                           evidence.max_regress, baseline->against);
    outcome.code = bench_verdict(outcome.report, outcome.comparison ? &*outcome.comparison : nullptr);
    journal.finish(outcome.report, outcome.code, outcome_line(outcome.report, outcome.comparison));
    outcome.run_id = journal.run_id();
    return outcome;
}

}  // namespace pdctl::ops
