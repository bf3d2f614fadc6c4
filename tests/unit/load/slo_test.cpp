#include "pdctl/load/slo.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "pdctl/load/arrivals.hpp"
#include "pdctl/load/row_stats.hpp"

namespace pdctl::load {
namespace {

RequestRecord request(double ttft, double e2e, int output, std::vector<double> itl) {
    RequestRecord record;
    record.ttft_s = ttft;
    record.e2e_s = e2e;
    record.output_tokens = output;
    record.itl_s = std::move(itl);
    return record;
}

TEST(Slo, ARequestMeetsItOnlyWhenEveryObjectiveHolds) {
    Slo slo;
    slo.ttft_s = 2.0;
    slo.itl_s = 0.05;
    const auto fast = request(1.0, 1.2, 5, {0.04, 0.05, 0.05, 0.06});  // p99 of its gaps: 0.0597
    EXPECT_FALSE(meets(slo, fast));
    const auto even = request(1.0, 1.2, 5, {0.04, 0.05, 0.05, 0.05});
    EXPECT_TRUE(meets(slo, even));
    EXPECT_FALSE(meets(slo, request(2.5, 3.0, 5, {0.01, 0.01, 0.01, 0.01})));
    slo.e2e_s = 1.0;
    EXPECT_FALSE(meets(slo, even));
    RequestRecord failed = even;
    failed.error = "HTTP 500";
    Slo none;
    none.tpot_s = 10;
    EXPECT_FALSE(meets(none, failed));
}

TEST(Slo, TpotIsTheMeanDecodeStepOfTheRequest) {
    Slo slo;
    slo.tpot_s = 0.05;
    // (e2e - ttft) / (tokens - 1) = (1.0 - 0.5) / 10 = 0.05: met; one more tenth of a second is not.
    EXPECT_TRUE(meets(slo, request(0.5, 1.0, 11, {})));
    EXPECT_FALSE(meets(slo, request(0.5, 1.1, 11, {})));
}

TEST(Goodput, CountsEveryRequestFailedOnesTooAndHoldsAtNinetyPercent) {
    Slo slo;
    slo.ttft_s = 1.0;
    std::vector<RequestRecord> records(10, request(0.5, 1.0, 2, {0.5}));
    records[9].ttft_s = 2;  // one slow request in ten: still holds
    auto good = goodput(slo, records, 5.0);
    EXPECT_EQ(good.met, 9);
    EXPECT_EQ(good.requests, 10);
    EXPECT_DOUBLE_EQ(good.attainment, 0.9);
    EXPECT_DOUBLE_EQ(good.requests_per_s, 1.8);
    EXPECT_TRUE(good.holds());
    records[8].error = "the stream ended without [DONE]";  // a failure meets nothing
    good = goodput(slo, records, 5.0);
    EXPECT_EQ(good.met, 8);
    EXPECT_FALSE(good.holds());
    EXPECT_FALSE(goodput(slo, {}, 1.0).holds());
}

TEST(Arrivals, BurstinessKeepsTheMeanRateAndChangesTheSpread) {
    // Gamma gaps of shape k have mean 1/rate and a coefficient of variation of 1/sqrt(k).
    for (const double burstiness : {0.25, 1.0, 4.0}) {
        PoissonArrivals arrivals(8.0, 42, burstiness);
        std::vector<double> gaps;
        for (int i = 0; i < 40000; ++i) gaps.push_back(arrivals.next_gap_s());
        double mean = 0;
        for (double gap : gaps) mean += gap;
        mean /= static_cast<double>(gaps.size());
        double variance = 0;
        for (double gap : gaps) variance += (gap - mean) * (gap - mean);
        variance /= static_cast<double>(gaps.size());
        EXPECT_NEAR(mean, 1.0 / 8, 0.03 / 8) << "burstiness " << burstiness;
        EXPECT_NEAR(std::sqrt(variance) / mean, 1 / std::sqrt(burstiness), 0.05 / std::sqrt(burstiness))
            << "burstiness " << burstiness;
    }
}

TEST(Arrivals, PoissonGapsAreTheSameWithOrWithoutTheBurstinessArgument) {
    PoissonArrivals before(4.0, 7);
    PoissonArrivals now(4.0, 7, 1.0);
    for (int i = 0; i < 100; ++i) EXPECT_DOUBLE_EQ(before.next_gap_s(), now.next_gap_s());
}

TEST(RowStatsCache, TheCachedShareIsOverTheRequestsThatSaidSo) {
    RequestRecord said = request(0.1, 0.2, 2, {0.1});
    said.input_tokens = 100;
    said.prompt_tokens = 100;
    said.cached_tokens = 40;
    RequestRecord silent = said;
    silent.cached_tokens = -1;
    silent.prompt_tokens = -1;
    const auto stats = summarize({said, said, silent}, 1.0, 0);
    EXPECT_EQ(stats.cache_reported, 2);
    EXPECT_EQ(stats.cached_tokens, 80);
    EXPECT_EQ(stats.counted_prompt_tokens, 200);
    EXPECT_DOUBLE_EQ(stats.cached_share(), 0.4);
}

}  // namespace
}  // namespace pdctl::load
