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

}  // namespace
}  // namespace pdctl::util
