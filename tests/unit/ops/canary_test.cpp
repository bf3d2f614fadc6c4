// The canary's own latency against the old groups beside it (ops/canary.hpp).
#include "pdctl/ops/canary.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pdctl::ops {
namespace {

LatencyReading decode(const std::string& role, double itl_sum, double itl_count) {
    LatencyReading reading;
    reading.role = role;
    reading.mode = "decode";
    reading.itl_sum = itl_sum;
    reading.itl_count = itl_count;
    return reading;
}

TEST(Canary, TheCanaryMeanOverTheLoadAgainstTheOldGroupsMean) {
    // decode restarted between the readings (its counters began again); decode-2 ran on.
    const std::vector<LatencyReading> before = {decode("decode", 50, 5000), decode("decode-2", 40, 5000)};
    const std::vector<LatencyReading> after = {decode("decode", 10.4, 1000), decode("decode-2", 48, 6000)};
    std::string why;
    const auto comparison = compare_canary(before, after, "decode", {"decode"}, 0.10, why);
    ASSERT_TRUE(comparison) << why;
    EXPECT_EQ(comparison->metric, "ITL mean");
    EXPECT_NEAR(comparison->canary_ms, 10.4, 1e-9);
    EXPECT_NEAR(comparison->others_ms, 8.0, 1e-9);
    EXPECT_NEAR(comparison->worse_by, 0.3, 1e-9);
    EXPECT_TRUE(comparison->regressed);
    EXPECT_EQ(comparison->others, std::vector<std::string>{"decode-2"});

    const auto lenient = compare_canary(before, after, "decode", {"decode"}, 0.35, why);
    ASSERT_TRUE(lenient);
    EXPECT_FALSE(lenient->regressed);
}

TEST(Canary, GroupsAlreadyReplacedAreNotTheBaselineAndAnIdleSideIsSaidNotJudged) {
    const std::vector<LatencyReading> before = {decode("decode", 0, 0), decode("decode-2", 8, 1000)};
    const std::vector<LatencyReading> after = {decode("decode", 8, 1000), decode("decode-2", 8, 1000)};
    std::string why;
    EXPECT_FALSE(compare_canary(before, after, "decode", {"decode"}, 0.10, why));
    EXPECT_EQ(why, "no group of the old config served tokens beside it");
    EXPECT_FALSE(compare_canary(after, after, "decode", {"decode", "decode-2"}, 0.10, why));
    auto broken = after;
    broken[0].error = "/metrics answered 404 (no --enable-metrics)";
    EXPECT_FALSE(compare_canary(before, broken, "decode", {"decode"}, 0.10, why));
    EXPECT_EQ(why, "decode: /metrics answered 404 (no --enable-metrics)");
}

TEST(Canary, APrefillCanaryIsJudgedByItsTimeToItsToken) {
    LatencyReading canary;
    canary.role = "prefill";
    canary.mode = "prefill";
    canary.ttft_sum = 2.0;  // 100 requests, 20 ms each
    canary.ttft_count = 100;
    LatencyReading other = canary;
    other.role = "prefill-2";
    LatencyReading other_before = other;
    other.ttft_sum += 1.0;  // 100 more, 10 ms each
    other.ttft_count += 100;
    std::string why;
    const auto comparison =
        compare_canary({canary, other_before}, {canary, other}, "prefill", {"prefill"}, 0.10, why);
    ASSERT_TRUE(comparison) << why;
    EXPECT_EQ(comparison->metric, "TTFT mean");
    EXPECT_NEAR(comparison->canary_ms, 20.0, 1e-9);
    EXPECT_NEAR(comparison->others_ms, 10.0, 1e-9);
    EXPECT_TRUE(comparison->regressed);
}

TEST(Canary, LessThanAMillisecondSlowerIsNoise) {
    // A moved prefill under a sanitizer build's load, nothing changed: 0.15 ms against 0.12 ms.
    LatencyReading canary;
    canary.role = "prefill-3";
    canary.mode = "prefill";
    canary.ttft_sum = 0.015;
    canary.ttft_count = 100;
    LatencyReading other = canary;
    other.role = "prefill";
    other.ttft_sum = 0.012;
    std::string why;
    const auto comparison = compare_canary({}, {canary, other}, "prefill-3", {"prefill-3"}, 0.10, why);
    ASSERT_TRUE(comparison) << why;
    EXPECT_NEAR(comparison->worse_by, 0.25, 1e-9);
    EXPECT_FALSE(comparison->regressed);
}

}  // namespace
}  // namespace pdctl::ops
