// The load runner's connection pool: big enough that no finished request's connection is closed while
// another request could reuse it, and never more than the open-file limit can hold.
#include "pdctl/load/connection_pool.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace pdctl::load {
namespace {

constexpr long kNoLimit = -1;

LoadSpec closed_loop(int concurrency) {
    LoadSpec spec;
    spec.concurrency = concurrency;
    return spec;
}

LoadSpec uncapped_rate(double rate, std::chrono::milliseconds timeout) {
    LoadSpec spec;
    spec.concurrency = 0;
    spec.rate = rate;
    spec.timeout = timeout;
    return spec;
}

TEST(ConnectionPool, AClosedLoopKeepsItsConcurrencyAndSpares) {
    EXPECT_EQ(connection_pool_size(closed_loop(4), 1024), 32);  // never below libcurl's usual 16 + spares
    EXPECT_EQ(connection_pool_size(closed_loop(256), 1024), 272);
    EXPECT_EQ(connection_pool_size(closed_loop(4096), kNoLimit), 4112);
}

// Little's law: rate × the longest a request can last is the most that can ever be in flight.
TEST(ConnectionPool, AnUncappedRateHoldsRateTimesTimeoutConnections) {
    EXPECT_EQ(connection_pool_size(uncapped_rate(50, std::chrono::seconds(10)), kNoLimit), 516);
    EXPECT_EQ(connection_pool_size(uncapped_rate(1000, std::chrono::seconds(60)), kNoLimit), 60016);
    EXPECT_EQ(connection_pool_size(uncapped_rate(2.5, std::chrono::milliseconds(1500)), kNoLimit), 32);
}

TEST(ConnectionPool, TheOpenFileLimitCapsAnUncappedRate) {
    const auto spec = uncapped_rate(1000, std::chrono::seconds(60));
    EXPECT_EQ(connection_pool_size(spec, 1024), 1024 - kFdsKeptBack);
    EXPECT_EQ(connection_pool_size(spec, 1048576), 60016);
    EXPECT_EQ(connection_pool_size(spec, 40), 32);  // a tiny limit still leaves a usable pool
}

TEST(ConnectionPool, AnEndlessRateStaysFinite) {
    const auto spec = uncapped_rate(std::numeric_limits<double>::infinity(), std::chrono::seconds(60));
    EXPECT_EQ(connection_pool_size(spec, kNoLimit), 1000000000L);
    EXPECT_EQ(connection_pool_size(spec, 65536), 65536 - kFdsKeptBack);
}

}  // namespace
}  // namespace pdctl::load
