#include "pdctl/util/wall_clock.hpp"

#include <gtest/gtest.h>

namespace pdctl::util {
namespace {

constexpr long long kNoonMs = 1796212800LL * 1000;  // 2026-12-02T12:00:00Z

TEST(UtcText, WritesTheSecondInUtcWithAZ) {
    EXPECT_EQ(utc_text(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(utc_text(kNoonMs), "2026-12-02T12:00:00Z");
}

TEST(UtcText, DropsTheMillisecondsRatherThanRounding) {
    EXPECT_EQ(utc_text(kNoonMs + 999), "2026-12-02T12:00:00Z");
    EXPECT_EQ(utc_text(kNoonMs + 1000), "2026-12-02T12:00:01Z");
}

TEST(UtcTextMs, KeepsTheMillisecondsInThreeDigits) {
    EXPECT_EQ(utc_text_ms(kNoonMs + 42), "2026-12-02T12:00:00.042Z");
    EXPECT_EQ(utc_text_ms(kNoonMs + 999), "2026-12-02T12:00:00.999Z");
    EXPECT_EQ(utc_text_ms(kNoonMs), "2026-12-02T12:00:00.000Z");
}

TEST(EpochNow, AgreesInEveryUnit) {
    const long long ms_before = epoch_ms_now();
    const long long seconds = epoch_seconds_now();
    const double exact = epoch_seconds_exact_now();
    const long long ms_after = epoch_ms_now();
    EXPECT_LE(ms_before, ms_after);
    EXPECT_GE(seconds, ms_before / 1000);
    EXPECT_LE(seconds, ms_after / 1000);
    EXPECT_GE(exact, static_cast<double>(ms_before) / 1000 - 0.001);
    EXPECT_LE(exact, static_cast<double>(ms_after) / 1000 + 0.001);
    EXPECT_GT(seconds, 1700000000);  // a clock of this century, in seconds rather than ms or ns
}

}  // namespace
}  // namespace pdctl::util
