#include "pdctl/util/durations.hpp"

#include <gtest/gtest.h>

namespace pdctl::util {
namespace {

using std::chrono::milliseconds;

TEST(MillisecondsSince, CountsWholeMillisecondsFromAPastInstant) {
    const auto began = SteadyClock::now() - milliseconds(1500) - std::chrono::microseconds(300);
    const auto elapsed = milliseconds_since(began);
    EXPECT_GE(elapsed, milliseconds(1500));
    EXPECT_LT(elapsed, milliseconds(1500 + 60000));  // however slow the machine, not a minute
}

TEST(MillisecondsSince, IsNeverNegativeForAStepThatJustBegan) {
    // The steady clock does not go back, whatever the wall clock does.
    EXPECT_LT(milliseconds_since(SteadyClock::now()), milliseconds(60000));
    EXPECT_GE(milliseconds_since(SteadyClock::now()), milliseconds(0));
}

TEST(ToSeconds, KeepsTheFractionOfEveryUnit) {
    EXPECT_EQ(to_seconds(milliseconds(1234)), 1234 / 1000.0);  // as JUnit files always had it
    EXPECT_EQ(to_seconds(std::chrono::nanoseconds(1500000000)), 1.5);
    EXPECT_EQ(to_seconds(std::chrono::minutes(2)), 120.0);
    EXPECT_EQ(to_seconds(milliseconds(0)), 0.0);
}

TEST(SecondsSince, CountsFractionalSecondsFromAPastInstant) {
    const auto seconds = seconds_since(SteadyClock::now() - milliseconds(2500));
    EXPECT_GE(seconds, 2.5);
    EXPECT_LT(seconds, 62.5);
}

}  // namespace
}  // namespace pdctl::util
