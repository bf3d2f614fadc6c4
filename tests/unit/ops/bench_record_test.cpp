// The bench record's per-request samples (what a later --vs tests) and sglang.bench_serving's fields.
#include "pdctl/ops/bench_record.hpp"

#include <gtest/gtest.h>

namespace pdctl::ops {
namespace {

using nlohmann::json;

load::RequestRecord request(double ttft, double e2e, int output_tokens) {
    load::RequestRecord record;
    record.input_tokens = 100;
    record.output_tokens = output_tokens;
    record.ttft_s = ttft;
    record.e2e_s = e2e;
    for (int gap = 1; gap < output_tokens; ++gap) record.itl_s.push_back((e2e - ttft) / (output_tokens - 1));
    return record;
}

BenchReport report_of(std::vector<load::RequestRecord> records, std::vector<double> run_throughputs) {
    BenchReport report;
    report.spec.scenario = "custom";
    BenchLevel level;
    level.stats = load::summarize(records, 2.0, 0);
    for (double throughput : run_throughputs) {
        load::RowStats run;
        run.output_throughput = throughput;
        level.runs.push_back(run);
    }
    level.records = std::move(records);
    report.rows.push_back({{"medium", 100, 5}, {level}});
    return report;
}

const json& level_of(const json& record) {
    return record["rows"][0]["levels"][0];
}

TEST(BenchRecord, KeepsEverySuccessfulRequestsSamplesAndEachRunsThroughput) {
    auto failed = request(0.1, 0.2, 5);
    failed.error = "HTTP 500";
    const json record = bench_record(
        report_of({request(0.100, 0.500, 5), failed, request(0.200, 0.600, 1), request(0.3000004, 0.700, 5)},
                  {40, 42}));
    const json& samples = level_of(record)["samples"];
    EXPECT_EQ(samples["requests"], 3);
    EXPECT_EQ(samples["kept"], 3);
    EXPECT_FALSE(samples.contains("subsample"));
    EXPECT_EQ(samples["ttft_s"], json({0.1, 0.2, 0.3}));  // to the microsecond
    EXPECT_EQ(samples["e2e_s"], json({0.5, 0.6, 0.7}));
    EXPECT_EQ(samples["tpot_s"], json({0.1, nullptr, 0.1}));  // a one-token answer has none
    EXPECT_EQ(samples["itl_s"], json({0.1, nullptr, 0.1}));
    EXPECT_EQ(samples["input_tokens"], json({100, 100, 100}));
    EXPECT_EQ(samples["output_tokens"], json({5, 1, 5}));
    EXPECT_EQ(samples["output_throughput_per_run"], json({40, 42}));
}

TEST(BenchRecord, ALongLevelKeepsASeededUniformSubsample) {
    std::vector<load::RequestRecord> records;
    for (int i = 0; i < 3 * kBenchSamplesKept; ++i) records.push_back(request(0.001 * (i + 1), 1.0, 5));
    const auto report = report_of(records, {40});
    const json first = level_of(bench_record(report))["samples"];
    EXPECT_EQ(first["requests"], 3 * kBenchSamplesKept);
    EXPECT_EQ(first["kept"], kBenchSamplesKept);
    ASSERT_EQ(first["ttft_s"].size(), static_cast<std::size_t>(kBenchSamplesKept));
    EXPECT_NE(first["subsample"].get<std::string>().find("seeded uniform"), std::string::npos);
    // In send order, from the whole level (not its first requests), and the same every time.
    double previous = 0;
    for (const auto& value : first["ttft_s"]) {
        EXPECT_GT(value.get<double>(), previous);
        previous = value.get<double>();
    }
    EXPECT_GT(previous, 0.001 * 2.5 * kBenchSamplesKept);
    EXPECT_LT(first["ttft_s"][0].get<double>(), 0.001 * 0.5 * kBenchSamplesKept);
    EXPECT_EQ(level_of(bench_record(report))["samples"], first);
}

TEST(BenchRecord, CarriesBenchServingsFieldsInItsUnits) {
    const json level =
        level_of(bench_record(report_of({request(0.100, 0.500, 5), request(0.300, 0.700, 5)}, {40})));
    EXPECT_EQ(level["completed"], 2);
    EXPECT_DOUBLE_EQ(level["duration"].get<double>(), 2.0);
    EXPECT_EQ(level["total_input_tokens"], 200);
    EXPECT_EQ(level["total_output_tokens"], 10);
    EXPECT_DOUBLE_EQ(level["total_throughput"].get<double>(), 105.0);
    EXPECT_NEAR(level["mean_ttft_ms"].get<double>(), 200, 1e-9);
    EXPECT_NEAR(level["median_ttft_ms"].get<double>(), 200, 1e-9);
    EXPECT_NEAR(level["std_ttft_ms"].get<double>(), 100, 1e-9);  // numpy's std: population
    EXPECT_NEAR(level["p99_ttft_ms"].get<double>(), 298, 1e-9);
    EXPECT_NEAR(level["median_e2e_latency_ms"].get<double>(), 600, 1e-9);
    EXPECT_NEAR(level["median_tpot_ms"].get<double>(), 100, 1e-9);
    EXPECT_NEAR(level["p95_itl_ms"].get<double>(), 100, 1e-9);
    EXPECT_NEAR(level["max_itl_ms"].get<double>(), 100, 1e-9);
    EXPECT_EQ(level["max_concurrency"], 1);
    EXPECT_TRUE(level["request_rate"].is_null());
    // pdctl's own fields stay as they were.
    EXPECT_EQ(level["ok"], 2);
    EXPECT_NEAR(level["ttft_s"]["p50"].get<double>(), 0.2, 1e-12);
}

}  // namespace
}  // namespace pdctl::ops
