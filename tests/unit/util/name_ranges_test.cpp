#include "pdctl/util/name_ranges.hpp"

#include <gtest/gtest.h>

namespace pdctl::util {
namespace {

TEST(NameRanges, ConsecutiveNumbersFoldAndTheRestStay) {
    EXPECT_EQ(name_ranges({"n1", "n2", "n5", "n6", "n7", "n8"}), "n1–n2, n5–n8");
    EXPECT_EQ(name_ranges({"n8", "n3", "n1", "n2"}), "n1–n3, n8");
    EXPECT_EQ(name_ranges({"n1", "n1", "n2"}), "n1–n2") << "duplicates count once";
    EXPECT_EQ(name_ranges({"gpu-a", "n4", "gpu-b", "n3"}), "gpu-a, n3–n4, gpu-b");
    EXPECT_EQ(name_ranges({"h01", "h02"}), "h01, h02") << "zero-padded numbers are not folded";
    EXPECT_EQ(name_ranges({}), "");
    EXPECT_EQ(name_ranges({"n9", "n10", "n11"}), "n9–n11");
}

}  // namespace
}  // namespace pdctl::util
