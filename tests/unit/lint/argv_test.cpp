// Reading flags from a final argv the way argparse/gflags do: the last occurrence wins.
#include "pdctl/lint/argv.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/lint/address.hpp"

namespace pdctl::lint {
namespace {

using ::testing::ElementsAre;

const std::vector<std::string> kArgv = {"python3",   "-m", "sglang.launch_server", "--port",       "30000",
                                        "--tp-size", "32", "--trust-remote-code",  "--port=30005", "--tp",
                                        "16"};

TEST(LintArgv, TheLastOccurrenceOfAnyAliasWins) {
    EXPECT_EQ(flag_value(kArgv, {"--port"}), "30005");
    EXPECT_EQ(flag_int(kArgv, {"--tp-size", "--tensor-parallel-size", "--tp"}), 16);
    EXPECT_EQ(flag_int(kArgv, {"--tp-size"}), 32);
    EXPECT_EQ(flag_value(kArgv, {"--host"}), std::nullopt);
}

TEST(LintArgv, PrefixesOfOtherFlagsAndMissingValuesDoNotCount) {
    EXPECT_EQ(flag_value({"--port-x", "1", "--portal=2"}, {"--port"}), std::nullopt);
    EXPECT_EQ(flag_value({"--port", "1", "--port"}, {"--port"}), std::nullopt);
    EXPECT_EQ(flag_int({"--port", "30k"}, {"--port"}), std::nullopt);
}

TEST(LintArgv, StoreTrueFlags) {
    EXPECT_TRUE(flag_set({"--enable-dp-attention"}, {"--enable-dp-attention"}));
    EXPECT_FALSE(flag_set({"--enable-dp-attention=false"}, {"--enable-dp-attention"}));
    EXPECT_FALSE(flag_set({"--dp-size", "2"}, {"--enable-dp-attention"}));
}

TEST(LintArgv, RepeatedFlagsKeepEveryOccurrenceWithItsValues) {
    const std::vector<std::string> router = {"--prefill",  "http://a:1", "8998",       "--prefill",
                                             "http://b:1", "--decode",   "http://c:1", "--prefill=http://d:1",
                                             "-1",         "--host"};
    EXPECT_THAT(flag_occurrences(router, {"--prefill"}),
                ElementsAre(ElementsAre("http://a:1", "8998"), ElementsAre("http://b:1"),
                            ElementsAre("http://d:1", "-1")));  // a negative number is a value, not an option
    EXPECT_THAT(flag_occurrences(router, {"--decode"}), ElementsAre(ElementsAre("http://c:1")));
}

TEST(LintAddress, LoopbackWildcardAndUrls) {
    for (const char* host : {"127.0.0.1", "127.3.0.9", "localhost", "LOCALHOST", "::1", "[::1]"})
        EXPECT_TRUE(is_loopback_host(host)) << host;
    for (const char* host : {"10.0.0.1", "0.0.0.0", "my-localhost-box", "1270.0.0.1"})
        EXPECT_FALSE(is_loopback_host(host)) << host;
    EXPECT_TRUE(is_wildcard_host("0.0.0.0"));
    EXPECT_TRUE(is_wildcard_host("[::]"));
    EXPECT_TRUE(same_host("Node1", "node1"));

    const auto url = parse_http_url("http://10.0.0.1:30000/generate");
    ASSERT_TRUE(url);
    EXPECT_EQ(url->host, "10.0.0.1");
    EXPECT_EQ(url->port, 30000);
    EXPECT_EQ(parse_http_url("https://h")->port, 443);
    EXPECT_EQ(parse_http_url("http://[fe80::1]:8000")->host, "fe80::1");
    EXPECT_FALSE(parse_http_url("10.0.0.1:30000"));
    EXPECT_FALSE(parse_http_url("http://h:port"));
}

}  // namespace
}  // namespace pdctl::lint
