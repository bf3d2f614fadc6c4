#include "pdctl/load/request_body.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "pdctl/load/arrivals.hpp"

namespace pdctl::load {
namespace {

TEST(GenerateRequestBody, HasExactlyTheRowsLengthsAndAsksForAStreamWithIgnoreEos) {
    const auto body = nlohmann::json::parse(generate_request_body(1680, 512, 1, 0));
    EXPECT_EQ(body["input_ids"].size(), 1680u);
    EXPECT_EQ(body["sampling_params"]["max_new_tokens"], 512);
    EXPECT_EQ(body["sampling_params"]["ignore_eos"], true);
    EXPECT_EQ(body["stream"], true);
}

TEST(GenerateRequestBody, TheSeedRepeatsAPromptAndEveryRequestGetsItsOwn) {
    EXPECT_EQ(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 7, 3));
    EXPECT_NE(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 7, 4));
    EXPECT_NE(generate_request_body(64, 8, 7, 3), generate_request_body(64, 8, 8, 3));
}

TEST(PoissonArrivals, GapsAverageOneOverTheRateAndRepeatWithTheSeed) {
    PoissonArrivals arrivals(20, 1);
    PoissonArrivals again(20, 1);
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        const double gap = arrivals.next_gap_s();
        EXPECT_EQ(gap, again.next_gap_s());
        sum += gap;
    }
    EXPECT_NEAR(sum / n, 0.05, 0.002);
    EXPECT_EQ(PoissonArrivals(INFINITY, 1).next_gap_s(), 0);
}

}  // namespace
}  // namespace pdctl::load
