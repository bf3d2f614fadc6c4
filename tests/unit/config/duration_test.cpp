#include "pdctl/config/duration.hpp"

#include <gtest/gtest.h>

namespace pdctl::config {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(Duration, ParsesEveryUnit) {
    EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
    EXPECT_EQ(parse_duration("90s"), seconds(90));
    EXPECT_EQ(parse_duration("25m"), minutes(25));
    EXPECT_EQ(parse_duration("1h"), hours(1));
}

TEST(Duration, PlainIntegerIsSeconds) {
    EXPECT_EQ(parse_duration("30"), seconds(30));
    EXPECT_EQ(parse_duration("0"), seconds(0));
}

TEST(Duration, RejectsOtherForms) {
    for (const char* text : {"", "s", "-1s", "1.5h", "1 h", " 1h", "1h ", "1d", "1H", "1hm", "10us", "1e3"}) {
        EXPECT_EQ(parse_duration(text), std::nullopt) << text;
    }
}

TEST(Duration, RejectsOverflowInsteadOfWrapping) {
    EXPECT_EQ(parse_duration("99999999999999999999h"), std::nullopt);
    EXPECT_EQ(parse_duration("9223372036854775807h"), std::nullopt);
    EXPECT_EQ(parse_duration("9223372036854775807ms"), milliseconds(9223372036854775807));
}

TEST(Duration, FormatsTheShortestExactForm) {
    EXPECT_EQ(format_duration(hours(2)), "2h");
    EXPECT_EQ(format_duration(minutes(25)), "25m");
    EXPECT_EQ(format_duration(seconds(90)), "90s");
    EXPECT_EQ(format_duration(milliseconds(1500)), "1500ms");
    EXPECT_EQ(format_duration(milliseconds(0)), "0s");
}

TEST(Duration, FormatThenParseRoundTrips) {
    for (const auto value :
         {milliseconds(1), milliseconds(999), milliseconds(60000), milliseconds(5400000)}) {
        EXPECT_EQ(parse_duration(format_duration(value)), value);
    }
}

}  // namespace
}  // namespace pdctl::config
