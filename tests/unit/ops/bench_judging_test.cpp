// bench's judging on fakes: the baseline `--vs last` takes from the journal (the coordinator's, through
// the deployment's executor) is the newest run that passed with this workload, a failed or regressed
// one never; and the verdict of a run against it: a significant regression exits 16, a slowdown within
// the noise 0, a failed run 15 whatever the comparison says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/bench_evidence.hpp"
#include "pdctl/ops/bench_record.hpp"
#include "pdctl/ops/bench_verb.hpp"
#include "unit/support/fake_deployment.hpp"

namespace pdctl::ops {
namespace {

using nlohmann::json;

// A record of row `medium` at concurrency 1 that kept each request's TTFT.
json record_of(const std::vector<double>& ttft) {
    std::vector<double> sorted = ttft;
    std::sort(sorted.begin(), sorted.end());
    const auto middle = sorted.size() / 2;
    const double median = sorted.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    const json samples = {{"ttft_s", ttft},
                          {"tpot_s", json::array()},
                          {"itl_s", json::array()},
                          {"e2e_s", json::array()},
                          {"input_tokens", json::array()},
                          {"output_tokens", json::array()},
                          {"output_throughput_per_run", {100}}};
    const json level = {{"concurrency", 1},         {"rate", nullptr},
                        {"ok", ttft.size()},        {"ttft_s", {{"p50", median}}},
                        {"output_throughput", 100}, {"samples", samples}};
    return {{"scenario", "custom"},
            {"rows", json::array({{{"name", "medium"},
                                   {"input_tokens", 1680},
                                   {"output_tokens", 256},
                                   {"levels", json::array({level})}}})}};
}

const std::vector<double> kSteady = {0.50, 0.52, 0.49, 0.51, 0.50, 0.53, 0.48, 0.50, 0.51, 0.52};

std::vector<double> scaled(const std::vector<double>& values, double by) {
    std::vector<double> out;
    for (double value : values) out.push_back(value * by);
    return out;
}

const MetricChange& ttft_change(const BenchComparison& comparison) {
    for (const auto& change : comparison.changes)
        if (change.metric == "TTFT p50") return change;
    throw std::runtime_error("no TTFT p50 compared");
}

class BenchJudgingTest : public ::testing::Test {
  protected:
    BenchJudgingTest() {
        spec.scenario = "custom";
        spec.rows = {{"medium", 1680, 256}};
    }

    // A bench run as the journal keeps it: its record, then how it ended.
    void journal_run(const std::string& run, const json& record, int exit_code) {
        fake.nodes.journal +=
            json{{"run", run}, {"ts", "2026-12-06T10:00:00Z"}, {"event", "bench"}, {"record", record}}
                .dump() +
            "\n";
        fake.nodes.journal +=
            json{{"run", run}, {"event", "record_end"}, {"exit_code", exit_code}}.dump() + "\n";
    }

    BenchComparison against_last(const json& now) {
        const auto baseline = baseline_from_journal(fake.deployment, "last", spec);
        against = baseline.against;
        return compare_bench(recorded_levels(baseline.record, baseline.against),
                             recorded_levels(now, "this run"), 0.10, baseline.against);
    }

    BenchSpec spec;
    testing::FakeDeployment fake;
    std::string against;
};

// The newest run failed (15) and the one before regressed (16): neither is a baseline; the passing run
// before them is, and against it this run, 20% slower on every request, regresses significantly.
TEST_F(BenchJudgingTest, ASignificantRegressionAgainstTheNewestPassingRunExits16) {
    journal_run("run-pass", record_of(kSteady), 0);
    journal_run("run-regressed", record_of(scaled(kSteady, 2.0)), 16);
    journal_run("run-failed", record_of(scaled(kSteady, 3.0)), 15);
    const auto comparison = against_last(record_of(scaled(kSteady, 1.2)));
    EXPECT_EQ(against, "run run-pass (2026-12-06T10:00:00Z)");
    EXPECT_TRUE(comparison.regressed());
    BenchReport passed;  // no problem: every request succeeded
    EXPECT_EQ(bench_verdict(passed, &comparison), ExitCode::kBenchRegressed);
    // Against the regressed (2x) or failed (3x) run this one would have looked better: not taken.
    EXPECT_NEAR(ttft_change(comparison).worse_by, 0.2, 1e-9);
}

// The same medians worse by more than the allowance, but within what two runs of an unchanged
// deployment spread: not significant, exit 0.
TEST_F(BenchJudgingTest, ASlowdownWithinTheNoiseIsNoRegression) {
    const std::vector<double> wide = {0.30, 0.70, 0.45, 0.55, 0.35, 0.65, 0.40, 0.60, 0.50, 0.52};
    journal_run("run-pass", record_of(wide), 0);
    const std::vector<double> now = {0.35, 0.80, 0.52, 0.63, 0.40, 0.75, 0.46, 0.69, 0.58, 0.60};
    const auto comparison = against_last(record_of(now));
    EXPECT_GT(ttft_change(comparison).worse_by, 0.10) << "the median moved more than the allowance";
    EXPECT_FALSE(comparison.regressed());
    BenchReport passed;
    EXPECT_EQ(bench_verdict(passed, &comparison), ExitCode::kOk);
}

TEST_F(BenchJudgingTest, OnlyFailedRunsInTheJournalMeanNoBaselineAndTheRefusalSaysWhy) {
    journal_run("run-failed", record_of(kSteady), 15);
    try {
        baseline_from_journal(fake.deployment, "last", spec);
        FAIL() << "a failed run was taken as the baseline";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        EXPECT_NE(std::string(failure.what()).find("it exited 15"), std::string::npos) << failure.what();
    }
}

// A run with failed requests fails (15) whatever the comparison; a cancelled one is interrupted.
TEST_F(BenchJudgingTest, AFailedOrCancelledRunIsJudgedAsSuchBeforeAnyComparison) {
    journal_run("run-pass", record_of(kSteady), 0);
    const auto comparison = against_last(record_of(scaled(kSteady, 1.2)));
    BenchReport failed;
    failed.problems.push_back("medium c=1: 3 of 10 requests failed");
    EXPECT_EQ(bench_verdict(failed, &comparison), ExitCode::kBenchFailed);
    EXPECT_EQ(bench_verdict(failed, nullptr), ExitCode::kBenchFailed);
    BenchReport cancelled;
    cancelled.cancelled = true;
    EXPECT_EQ(bench_verdict(cancelled, &comparison), ExitCode::kInterrupted);
    BenchReport passed;
    EXPECT_EQ(bench_verdict(passed, nullptr), ExitCode::kOk);
}

}  // namespace
}  // namespace pdctl::ops
