// The gate's statistics against numbers computed independently: scipy's documented example, a direct
// count of U and an exact permutation p, and Student's t tail by numerical integration of its density
// (pure Python, math module only).
#include "pdctl/load/significance.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace pdctl::load {
namespace {

TEST(NormalDistribution, TailAndQuantileMatchTables) {
    EXPECT_NEAR(normal_upper_tail(1.959964), 0.025, 1e-7);
    EXPECT_NEAR(normal_upper_tail(0), 0.5, 1e-15);
    EXPECT_NEAR(normal_quantile(0.99), 2.326348, 1e-6);
    EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
    EXPECT_NEAR(normal_quantile(0.01), -2.326348, 1e-6);
}

TEST(StudentT, TailAndQuantileMatchIntegration) {
    // P(T > 2) with 10 degrees of freedom: 0.0366940174 (integration; tables: 0.0367).
    EXPECT_NEAR(student_t_upper_tail(2, 10), 0.0366940174, 1e-9);
    EXPECT_NEAR(student_t_upper_tail(-2, 10), 1 - 0.0366940174, 1e-9);
    // A fractional df, as Welch's gives: P(T > 1.5 | 3.7) = 0.1067990846.
    EXPECT_NEAR(student_t_upper_tail(1.5, 3.7), 0.1067990846, 1e-8);
    // Table quantiles: t(0.975, 4) = 2.776445, t(0.99, 10) = 2.763769, t(0.995, 30) = 2.749996.
    EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776445, 1e-6);
    EXPECT_NEAR(student_t_quantile(0.99, 10), 2.763769, 1e-6);
    EXPECT_NEAR(student_t_quantile(0.995, 30), 2.749996, 1e-6);
}

TEST(MannWhitney, ScipysDocumentedExample) {
    // scipy.stats.mannwhitneyu's example: males against females, U1 = 17, asymptotic two-sided
    // p = 0.11134688653314041, so one-sided "greater" is its half.
    const auto test = mann_whitney_greater({20, 11, 17, 12}, {19, 22, 16, 29, 24}, 0.98);
    EXPECT_DOUBLE_EQ(test.u, 17);
    EXPECT_NEAR(test.z, 1.5921683328, 1e-9);
    EXPECT_NEAR(test.p_value, 0.11134688653314041 / 2, 1e-12);
    // And the other way round: U of the lower side, p near one.
    const auto reverse = mann_whitney_greater({19, 22, 16, 29, 24}, {20, 11, 17, 12}, 0.98);
    EXPECT_DOUBLE_EQ(reverse.u, 3);
    EXPECT_GT(reverse.p_value, 0.9);
}

TEST(MannWhitney, EveryLaterValueAboveEveryBeforeValue) {
    // U = 25 of 25 pairs; z = (25 - 12.5 - 0.5) / sqrt(25 * 11 / 12) = 2.5067182458; p = 0.0060928902.
    const auto test = mann_whitney_greater({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.98);
    EXPECT_DOUBLE_EQ(test.u, 25);
    EXPECT_NEAR(test.z, 2.5067182458, 1e-9);
    EXPECT_NEAR(test.p_value, 0.0060928902, 1e-10);
    EXPECT_NEAR(mann_whitney_smallest_p(5, 5), 0.0060928902, 1e-10);
    // The 98% interval's rank k = ceil(12.5 - 0.5 - 2.326 × 4.787) = 1: the extreme ratios, 6/5 and 10/1.
    EXPECT_NEAR(test.ratio.low, 1.2, 1e-12);
    EXPECT_NEAR(test.ratio.high, 10, 1e-12);
}

TEST(MannWhitney, TiesShareTheirRanksAndShrinkTheVariance) {
    // U by direct count of pairs: 23; tie groups {2,2,2} and {3,3,3}: sum t^3 - t = 48, so the variance
    // is 30/12 × (12 - 48/110); z = 1.3949031210, p = 0.0815225279 (the exact permutation p is 0.0866).
    const auto test = mann_whitney_greater({1, 2, 2, 3, 5}, {2, 3, 3, 4, 6, 7}, 0.98);
    EXPECT_DOUBLE_EQ(test.u, 23);
    EXPECT_NEAR(test.z, 1.3949031210, 1e-9);
    EXPECT_NEAR(test.p_value, 0.0815225279, 1e-10);
    // k = ceil(15 - 0.5 - 2.326 × 5.377) = 2: the second smallest and second largest ratio.
    EXPECT_NEAR(test.ratio.low, 0.6, 1e-12);
    EXPECT_NEAR(test.ratio.high, 6, 1e-12);
}

TEST(MannWhitney, TooFewToTellAndNothingToTell) {
    // Three against three can never reach 1%: the smallest p is 0.040 (exactly it would be 1/20).
    EXPECT_GT(mann_whitney_smallest_p(3, 3), 0.01);
    EXPECT_LT(mann_whitney_smallest_p(5, 5), 0.01);
    const auto three = mann_whitney_greater({1, 2, 3}, {4, 5, 6}, 0.98);
    EXPECT_NEAR(three.p_value, mann_whitney_smallest_p(3, 3), 1e-12);
    EXPECT_EQ(three.ratio.low, 0);
    EXPECT_TRUE(std::isinf(three.ratio.high));
    EXPECT_EQ(mann_whitney_greater({}, {1}, 0.98).p_value, 1);
    EXPECT_EQ(mann_whitney_greater({2, 2}, {2, 2}, 0.98).p_value, 1);  // no spread: no evidence
}

TEST(WelchLog, PerRunThroughputs) {
    // logs of {100,104,98} and {115,118,112}: t = 5.7787443005, df = 3.9169688019,
    // p = 0.0023747785 (integration); 98% interval of the ratio of geometric means 1.0469 .. 1.2468.
    const auto test = welch_log_greater({100, 104, 98}, {115, 118, 112}, 0.98);
    EXPECT_NEAR(test.t, 5.7787443005, 1e-8);
    EXPECT_NEAR(test.df, 3.9169688019, 1e-8);
    EXPECT_NEAR(test.p_value, 0.0023747785, 1e-8);
    EXPECT_NEAR(test.ratio.low, 1.0468766, 1e-6);
    EXPECT_NEAR(test.ratio.high, 1.2468001, 1e-6);
    EXPECT_EQ(welch_log_greater({100}, {90, 91}, 0.98).p_value, 1);  // one run: nothing to test
    EXPECT_EQ(welch_log_greater({100, 100}, {90, 90}, 0.98).p_value, 1);
    EXPECT_EQ(welch_log_greater({90, 90}, {100, 100}, 0.98).p_value, 0);
}

}  // namespace
}  // namespace pdctl::load
