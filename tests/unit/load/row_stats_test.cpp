#include "pdctl/load/row_stats.hpp"

#include <gtest/gtest.h>

namespace pdctl::load {
namespace {

RequestRecord ok(double ttft, double e2e, int input, int output, std::vector<double> itl = {}) {
    RequestRecord record;
    record.ttft_s = ttft;
    record.e2e_s = e2e;
    record.input_tokens = input;
    record.output_tokens = output;
    record.itl_s = std::move(itl);
    return record;
}

RequestRecord failed(std::string error) {
    RequestRecord record;
    record.error = std::move(error);
    return record;
}

TEST(Percentile, InterpolatesBetweenClosestRanksAsNumpyDoes) {
    // numpy.percentile([1, 2, 3, 4], [50, 90, 99]) == [2.5, 3.7, 3.97]
    EXPECT_DOUBLE_EQ(percentile({4, 1, 3, 2}, 50), 2.5);
    EXPECT_NEAR(percentile({4, 1, 3, 2}, 90), 3.7, 1e-12);
    EXPECT_NEAR(percentile({4, 1, 3, 2}, 99), 3.97, 1e-12);
    EXPECT_EQ(percentile({}, 50), 0);
    EXPECT_EQ(percentile({7}, 99), 7);
}

TEST(Summarize, ThroughputCountsOnlyTheSuccessfulRequestsOverTheWallTime) {
    const auto stats =
        summarize({ok(0.1, 1.1, 1000, 11, {0.1}), ok(0.3, 2.3, 3000, 21), failed("boom")}, 4.0, 16);
    EXPECT_EQ(stats.ok, 2);
    EXPECT_EQ(stats.failed, 1);
    EXPECT_DOUBLE_EQ(stats.request_throughput, 0.5);
    EXPECT_DOUBLE_EQ(stats.input_throughput, 1000.0);
    EXPECT_DOUBLE_EQ(stats.output_throughput, 8.0);
    EXPECT_DOUBLE_EQ(stats.output_throughput_per_gpu, 0.5);
    EXPECT_DOUBLE_EQ(stats.ttft.p50, 0.2);
    EXPECT_DOUBLE_EQ(stats.tpot.p50, 0.1);           // (1.1-0.1)/10 and (2.3-0.3)/20
    EXPECT_DOUBLE_EQ(stats.input_tok_s.p50, 10000);  // 1000/0.1 and 3000/0.3
    EXPECT_DOUBLE_EQ(stats.output_tok_s.p50, 10);
}

TEST(Summarize, GroupsFailuresByTheirMaskedTextMostFrequentFirst) {
    const auto stats =
        summarize({failed("HTTP 503: no workers"), failed("KV transfer failed (bootstrap_room=123456789)"),
                   failed("KV transfer failed (bootstrap_room=987654321)")},
                  1.0, 0);
    ASSERT_EQ(stats.errors.size(), 2u);
    EXPECT_EQ(stats.errors[0].count, 2);
    EXPECT_EQ(stats.errors[0].error, "KV transfer failed (bootstrap_room=123456789)");
    EXPECT_EQ(stats.errors[1].count, 1);
    EXPECT_EQ(stats.output_throughput_per_gpu, 0);
}

}  // namespace
}  // namespace pdctl::load
