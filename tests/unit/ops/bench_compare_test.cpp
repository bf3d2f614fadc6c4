#include "pdctl/ops/bench_compare.hpp"

#include <gtest/gtest.h>

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
