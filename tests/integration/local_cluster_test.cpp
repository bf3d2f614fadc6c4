#include <gtest/gtest.h>

TEST(LocalCluster, Placeholder) {
    SUCCEED();
}
