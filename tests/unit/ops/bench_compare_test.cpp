#include "pdctl/ops/bench_compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {
namespace {

using nlohmann::json;

// A record of one row at concurrency 1 with these medians.
json record(double ttft, double itl, double output_throughput, int ok = 10) {
    json level = {{"concurrency", 1},
                  {"rate", nullptr},
                  {"ok", ok},
                  {"ttft_s", {{"p50", ttft}, {"p99", ttft * 5}}},
                  {"itl_s", {{"p50", itl}}},
                  {"output_throughput", output_throughput}};
    return {{"rows", json::array({{{"name", "medium"}, {"levels", json::array({level})}}})}};
}

const MetricChange& change_of(const BenchComparison& comparison, const std::string& metric) {
    for (const auto& change : comparison.changes)
        if (change.metric == metric) return change;
    throw std::runtime_error("no change for " + metric);
}

TEST(CompareBench, SlowerLatencyAndLowerThroughputAreWorseFasterIsNot) {
    const auto comparison = compare_bench(recorded_levels(record(0.100, 0.004, 200), "base"),
                                          recorded_levels(record(0.125, 0.0036, 150), "now"), 0.10, "run X");
    EXPECT_TRUE(change_of(comparison, "TTFT p50").regressed);
    EXPECT_NEAR(change_of(comparison, "TTFT p50").worse_by, 0.25, 1e-12);
    EXPECT_FALSE(change_of(comparison, "ITL p50").regressed);
    EXPECT_NEAR(change_of(comparison, "ITL p50").worse_by, -0.10, 1e-12);
    EXPECT_TRUE(change_of(comparison, "output tok/s").regressed);
    EXPECT_NEAR(change_of(comparison, "output tok/s").worse_by, 0.25, 1e-12);
    EXPECT_EQ(change_of(comparison, "TTFT p50").level, "medium c=1");
    EXPECT_TRUE(comparison.regressed());
}

TEST(CompareBench, WithinTheAllowanceIsNoRegressionAndTailsAreNotGatedOn) {
    const auto comparison = compare_bench(recorded_levels(record(0.100, 0.004, 200), "base"),
                                          recorded_levels(record(0.109, 0.0043, 185), "now"), 0.10, "run X");
    EXPECT_FALSE(comparison.regressed());
    for (const auto& change : comparison.changes) EXPECT_EQ(change.metric.find("p99"), std::string::npos);
}

TEST(CompareBench, LevelsTheBaselineLacksAreNamedAndAllFailedLevelsAreNotCompared) {
    json now = record(0.1, 0.004, 200);
    now["rows"][0]["levels"].push_back({{"concurrency", 4}, {"ok", 10}, {"ttft_s", {{"p50", 0.2}}}});
    const auto comparison = compare_bench(recorded_levels(record(0.1, 0.004, 200), "base"),
                                          recorded_levels(now, "now"), 0.1, "run X");
    EXPECT_EQ(comparison.unmatched, std::vector<std::string>{"medium c=4"});
    const auto failed = compare_bench(recorded_levels(record(0.1, 0.004, 200), "base"),
                                      recorded_levels(record(0, 0, 0, 0), "now"), 0.1, "run X");
    EXPECT_TRUE(failed.changes.empty());
}

TEST(RecordedLevels, RefusesADocumentThatIsNotABenchRecord) {
    EXPECT_THROW(recorded_levels(json{{"runs", json::array()}}, "--baseline x.json"), Failure);
    EXPECT_EQ(recorded_levels(record(0.1, 0.004, 200), "base").front().key, "medium c=1");
    EXPECT_EQ(level_key("long", 0, 8.0), "long 8/s");
}

// A level that kept its samples: `ttft` per request (TPOT, ITL and e2e follow from it), and per-run
// output throughputs; its medians are the samples' own.
json sampled_level(const std::vector<double>& ttft, const std::vector<double>& runs) {
    json samples = {{"ttft_s", ttft},
                    {"tpot_s", json::array()},
                    {"itl_s", json::array()},
                    {"e2e_s", json::array()},
                    {"input_tokens", json::array()},
                    {"output_tokens", json::array()},
                    {"output_throughput_per_run", runs}};
    std::vector<double> sorted = ttft;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 == 1
                              ? sorted[sorted.size() / 2]
                              : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    double throughput = 0;
    for (double run : runs) throughput += run / static_cast<double>(runs.size());
    return {{"concurrency", 1},
            {"rate", nullptr},
            {"ok", ttft.size()},
            {"ttft_s", {{"p50", median}}},
            {"output_throughput", throughput},
            {"samples", samples}};
}

json sampled_record(const json& level) {
    return {{"scenario", "custom"},
            {"rows", json::array({{{"name", "medium"},
                                   {"input_tokens", 1680},
                                   {"output_tokens", 256},
                                   {"levels", json::array({level})}}})}};
}

BenchComparison compare_records(const json& before, const json& now) {
    return compare_bench(recorded_levels(before, "base"), recorded_levels(now, "now"), 0.10, "run X");
}

TEST(CompareBench, ASignificantSlowdownBeyondTheAllowanceRegressesWithItsInterval) {
    const std::vector<double> before = {0.50, 0.52, 0.49, 0.51, 0.50, 0.53, 0.48, 0.50, 0.51, 0.52};
    std::vector<double> now;
    for (double value : before) now.push_back(value * 1.2);
    const auto comparison = compare_records(sampled_record(sampled_level(before, {100})),
                                            sampled_record(sampled_level(now, {84})));
    const auto& ttft = change_of(comparison, "TTFT p50");
    EXPECT_EQ(ttft.test, ChangeTest::kRanks);
    EXPECT_EQ(ttft.before_samples, 10);
    EXPECT_NEAR(ttft.worse_by, 0.2, 1e-9);
    ASSERT_TRUE(ttft.p_value && ttft.worse_low && ttft.worse_high);
    EXPECT_LT(*ttft.p_value, kGateAlpha);
    EXPECT_GT(*ttft.worse_low, 0);  // the interval's low end shows it worse
    EXPECT_LE(*ttft.worse_low, 0.2);
    EXPECT_GE(*ttft.worse_high, 0.2);
    EXPECT_TRUE(ttft.regressed);
    EXPECT_FALSE(comparison.without_interval);
    // One run a side: throughput is reported, not gated, and says why.
    const auto& throughput = change_of(comparison, "output tok/s");
    EXPECT_EQ(throughput.test, ChangeTest::kNotGated);
    EXPECT_NEAR(throughput.worse_by, 0.16, 1e-9);
    EXPECT_FALSE(throughput.regressed);
    EXPECT_NE(throughput.why_not_gated.find("--repeat 3"), std::string::npos) << throughput.why_not_gated;
}

TEST(CompareBench, AMedianWorseByMoreThanAllowedButWithinTheNoiseDoesNotRegress) {
    // The medians differ by 12%, but the two sets overlap so much that the rank test cannot tell them
    // apart (p well above 1%): one outlier-heavy rerun is not a regression.
    const std::vector<double> before = {0.40, 0.90, 0.50, 1.10, 0.45, 0.95, 0.60, 1.30, 0.55, 0.70};
    const std::vector<double> now = {0.42, 1.00, 0.58, 1.05, 0.44, 0.98, 0.74, 1.40, 0.52, 0.76};
    const auto comparison = compare_records(sampled_record(sampled_level(before, {100})),
                                            sampled_record(sampled_level(now, {100})));
    const auto& ttft = change_of(comparison, "TTFT p50");
    EXPECT_GT(ttft.worse_by, 0.10);
    ASSERT_TRUE(ttft.p_value);
    EXPECT_GT(*ttft.p_value, 0.1);
    EXPECT_LT(*ttft.worse_low, 0);  // the interval reaches "better"
    EXPECT_FALSE(ttft.regressed);
    EXPECT_FALSE(comparison.regressed());
}

TEST(CompareBench, TooFewRequestsToTellAreReportedNotGated) {
    const auto comparison = compare_records(sampled_record(sampled_level({0.5, 0.5, 0.5}, {100})),
                                            sampled_record(sampled_level({0.9, 0.9, 0.9}, {100})));
    const auto& ttft = change_of(comparison, "TTFT p50");
    EXPECT_EQ(ttft.test, ChangeTest::kNotGated);
    EXPECT_NEAR(ttft.worse_by, 0.8, 1e-9);
    EXPECT_FALSE(ttft.regressed);
    EXPECT_NE(ttft.why_not_gated.find("3 and 3 requests"), std::string::npos) << ttft.why_not_gated;
}

TEST(CompareBench, ThroughputFromThreeRunsASideIsTestedOnTheRuns) {
    const std::vector<double> ttft(10, 0.5);
    const auto slower = compare_records(sampled_record(sampled_level(ttft, {100, 102, 99})),
                                        sampled_record(sampled_level(ttft, {85, 86, 84})));
    const auto& throughput = change_of(slower, "output tok/s");
    EXPECT_EQ(throughput.test, ChangeTest::kRuns);
    EXPECT_EQ(throughput.before_samples, 3);
    EXPECT_TRUE(throughput.regressed);
    EXPECT_GT(*throughput.worse_low, 0.05);
    // The same medians from runs that scatter as much as they moved: not significant.
    const auto noisy = compare_records(sampled_record(sampled_level(ttft, {100, 130, 75})),
                                       sampled_record(sampled_level(ttft, {70, 110, 80})));
    EXPECT_GT(change_of(noisy, "output tok/s").worse_by, 0.10);
    EXPECT_FALSE(change_of(noisy, "output tok/s").regressed);
}

TEST(CompareBench, AnOlderBaselineWithoutSamplesIsComparedPointAgainstPoint) {
    json now = sampled_record(sampled_level({0.125, 0.125, 0.125}, {150}));
    now["rows"][0].erase("input_tokens");  // the older record() carries no shape either
    now["rows"][0].erase("output_tokens");
    const auto comparison = compare_bench(recorded_levels(record(0.100, 0.004, 200), "base"),
                                          recorded_levels(now, "now"), 0.10, "run X");
    EXPECT_TRUE(comparison.without_interval);
    EXPECT_EQ(change_of(comparison, "TTFT p50").test, ChangeTest::kPoint);
    EXPECT_TRUE(change_of(comparison, "TTFT p50").regressed);
    EXPECT_FALSE(change_of(comparison, "TTFT p50").p_value);
}

TEST(CompareBench, LevelsMatchByRowShapeAsWellAsName) {
    json before = sampled_record(sampled_level({0.5, 0.5}, {100}));
    before["rows"][0]["input_tokens"] = 2048;
    const auto comparison = compare_records(before, sampled_record(sampled_level({0.5, 0.5}, {100})));
    EXPECT_TRUE(comparison.changes.empty());
    EXPECT_EQ(comparison.unmatched, std::vector<std::string>{"medium c=1"});
}

TEST(BenchShapeDifferences, NamesTheScenarioAndEachRowThatDiffers) {
    BenchSpec spec;
    spec.scenario = "validation";
    spec.rows = {{"warm-up", 16, 16}, {"medium", 2048, 256}, {"extra", 10, 10}};
    const json baseline = {
        {"scenario", "custom"},
        {"rows", json::array({json{{"name", "warm-up"}, {"input_tokens", 16}, {"output_tokens", 16}},
                              json{{"name", "medium"}, {"input_tokens", 1680}, {"output_tokens", 256}},
                              json{{"name", "long"}, {"input_tokens", 5280}, {"output_tokens", 256}}})}};
    const auto differences = bench_shape_differences(baseline, spec);
    const std::vector<std::string> expected = {"scenario: custom in the baseline, validation now",
                                               "row medium: input 1680 in the baseline, 2048 now",
                                               "row extra: not in the baseline",
                                               "row long: in the baseline, not now"};
    EXPECT_EQ(differences, expected);
    json same = baseline;
    same["scenario"] = "validation";
    same["rows"][1]["input_tokens"] = 2048;
    same["rows"][2] = json{{"name", "extra"}, {"input_tokens", 10}, {"output_tokens", 10}};
    EXPECT_TRUE(bench_shape_differences(same, spec).empty());
}

TEST(ParseRegressFraction, TakesPercentOrAFraction) {
    EXPECT_DOUBLE_EQ(parse_regress_fraction("10%"), 0.10);
    EXPECT_DOUBLE_EQ(parse_regress_fraction("10"), 0.10);
    EXPECT_DOUBLE_EQ(parse_regress_fraction("0.05"), 0.05);
    EXPECT_THROW(parse_regress_fraction("ten"), Failure);
    EXPECT_THROW(parse_regress_fraction("0"), Failure);
    EXPECT_THROW(parse_regress_fraction("-5%"), Failure);
}

}  // namespace
}  // namespace pdctl::ops
