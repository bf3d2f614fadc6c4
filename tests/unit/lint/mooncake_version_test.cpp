// Mooncake versions as pip orders them, and where a BOOTSTRAP names them.
#include "pdctl/lint/mooncake_version.hpp"

#include <gtest/gtest.h>

namespace pdctl::lint {
namespace {

int cmp(const char* a, const char* b) {
    return compare(*parse_version(a), *parse_version(b));
}

TEST(LintVersion, Pep440Order) {
    EXPECT_LT(cmp("0.3.11.post1", "0.3.12"), 0);
    EXPECT_LT(cmp("0.3.12", "0.3.12.post1"), 0);
    EXPECT_EQ(cmp("0.3.12.post1", "v0.3.12-post1"), 0);
    EXPECT_LT(cmp("0.3.12.post1", "0.3.12.post2"), 0);
    EXPECT_LT(cmp("0.3.12.post1", "0.3.13"), 0);
    EXPECT_LT(cmp("0.3.12rc1", "0.3.12"), 0);
    EXPECT_LT(cmp("0.3.12.dev1", "0.3.12a1"), 0);
    EXPECT_LT(cmp("0.3.12.post1.dev2", "0.3.12.post1"), 0);
    EXPECT_EQ(cmp("0.3.12", "0.3.12.0"), 0);
    EXPECT_LT(cmp("0.3.9", "0.3.12"), 0);  // numbers, not text
    EXPECT_FALSE(parse_version("latest"));
    EXPECT_FALSE(parse_version("0.3.x"));
}

TEST(LintVersion, WheelsAndPinsInBootstrap) {
    const auto installs = mooncake_installs(
        "pip install --no-deps "
        "/w/mooncake_transfer_engine_cuda13-0.3.11.post1-cp312-cp312-manylinux_2_28_x86_64.whl "
        "flash_kda-0.0.1-cp312.whl && pip install 'Mooncake_Transfer.Engine==0.3.12' && "
        "uv pip install mooncake-transfer-engine-cuda13===0.3.13");
    ASSERT_EQ(installs.size(), 3u);
    EXPECT_EQ(installs[0].version.text, "0.3.11.post1");
    EXPECT_EQ(installs[0].spelled,
              "mooncake_transfer_engine_cuda13-0.3.11.post1-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(installs[1].version.text, "0.3.12");
    EXPECT_EQ(installs[2].version.text, "0.3.13");
}

TEST(LintVersion, MentionsWithoutVersion) {
    EXPECT_TRUE(mentions_mooncake_package("pip install -U mooncake-transfer-engine"));
    EXPECT_TRUE(mentions_mooncake_package("pip install /w/mooncake-nightly.whl"));
    EXPECT_FALSE(mentions_mooncake_package("echo 'bootstrap: mooncake 0.3.12.post1 (simulated)'"));
    EXPECT_TRUE(mooncake_installs("mooncake-transfer-engine>=0.3.10").empty());
}

}  // namespace
}  // namespace pdctl::lint
