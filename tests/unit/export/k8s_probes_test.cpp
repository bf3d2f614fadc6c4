// Probe sizing from a gate, and the YAML writer's quoting: the two places where a wrong guess makes
// Kubernetes kill a healthy rank or refuse the manifest.
#include "pdctl/export/k8s_probes.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "pdctl/export/yaml_text.hpp"

namespace pdctl::exporter {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(K8sStartupTiming, WindowCoversTheDeadlineAndNoMore) {
    EXPECT_EQ(startup_timing(minutes(25), seconds(5)).failure_threshold, 300);
    EXPECT_EQ(startup_timing(minutes(25), seconds(5)).period_seconds, 5);
    EXPECT_EQ(startup_timing(seconds(10), seconds(3)).failure_threshold, 4);  // 12 s ≥ 10 s > 9 s
    // A sub-second interval is a 1 s period (the kubelet's smallest).
    EXPECT_EQ(startup_timing(seconds(30), milliseconds(200)).period_seconds, 1);
    EXPECT_EQ(startup_timing(seconds(30), milliseconds(200)).failure_threshold, 30);
    EXPECT_EQ(startup_timing(milliseconds(1500), milliseconds(2500)).period_seconds, 3);
    EXPECT_EQ(startup_timing(milliseconds(1500), milliseconds(2500)).failure_threshold, 1);
    for (long long deadline_ms : {1LL, 999LL, 1000LL, 1001LL, 59'999LL, 60'000LL, 1'500'000LL, 7'200'000LL})
        for (long long interval_ms : {1LL, 250LL, 1000LL, 1001LL, 5000LL, 30'000LL}) {
            const auto timing = startup_timing(milliseconds(deadline_ms), milliseconds(interval_ms));
            const long long window = 1000LL * timing.failure_threshold * timing.period_seconds;
            EXPECT_GE(window, deadline_ms) << deadline_ms << " " << interval_ms;
            EXPECT_LT(window - 1000LL * timing.period_seconds, deadline_ms)
                << deadline_ms << " " << interval_ms;
            EXPECT_GE(timing.period_seconds, interval_ms / 1000);
        }
}

TEST(K8sHttpTarget, PortAndPathOfAGateUrl) {
    const auto target = http_target("http://174.1.60.1:30000/health");
    ASSERT_TRUE(target);
    EXPECT_EQ(target->port, 30000);
    EXPECT_EQ(target->path, "/health");
    EXPECT_EQ(http_target("http://[fd00::1]:9003")->path, "/");
    EXPECT_FALSE(http_target("https://a:1/x"));
    EXPECT_FALSE(http_target("http://a/x"));
}

TEST(K8sYamlText, QuotesEveryStringAParserWouldReadAsSomethingElse) {
    for (const std::string text :
         {"8998", "0.85", "-1",  "1e3",   "0x1f", "0o17", "1:20",          ".inf",        "true", "no", "Off",
          "~",    "null", "",    " x",    "x ",   "a: b", "a #b",          "#c",          "- x",  "-",  "*x",
          "&x",   "!x",   "'x'", "\"x\"", "{x}",  "[x]",  "mlx5_0,mlx5_1", "line\nbreak", "%x",   "@x", "`x",
          "x:",   "?x",   "|x",  ">x"})
        EXPECT_FALSE(plain_scalar_ok(text)) << text;
    for (const std::string text : {"--host", "-m", "python3", "http://a:30000", "$(LWS_LEADER_ADDRESS):5000",
                                   "sglang.launch_server", "/data/models/Kimi-K3", "nvidia.com/gpu", "v1"})
        EXPECT_TRUE(plain_scalar_ok(text)) << text;
}

// Read back by a YAML parser, every string is the same string, and those that look like numbers or
// booleans are quoted (yaml-cpp tags a quoted scalar "!", a plain one "?").
TEST(K8sYamlText, RoundTripsThroughAYamlParser) {
    Tree tree = {
        {"args",
         {"python3", "--port", "8998", "true", "a: b", "line\nbreak\ttab", "quote\"back\\slash", "$(X):5000",
          "ünïcödé", std::string("nul\x01", 4), "{ script\n  indented\n\n# not a comment\n}",
          "ends in one newline\n", "two\n\n", " leading blank\nx", "blank line\n  \nx"}},
        {"number", 3},
        {"flag", false},
        {"empty_map", Tree::object()},
        {"empty_list", Tree::array()},
        {"nested", Tree::array({Tree{{"name", "a"}, {"list", {1, 2}}}, Tree::array({"x"})})},
        {"nvidia.com/gpu", "8"}};
    const auto node = YAML::Load(to_yaml(tree));
    for (std::size_t i = 0; i < tree["args"].size(); ++i)
        EXPECT_EQ(node["args"][i].as<std::string>(), tree["args"][i].get<std::string>()) << i;
    EXPECT_EQ(node["args"][2].Tag(), "!");
    EXPECT_EQ(node["args"][3].Tag(), "!");
    EXPECT_NE(to_yaml(tree).find("- |-\n  { script\n    indented\n\n  # not a comment\n  }\n"),
              std::string::npos)
        << to_yaml(tree);
    EXPECT_EQ(node["number"].as<int>(), 3);
    EXPECT_EQ(node["number"].Tag(), "?");
    EXPECT_FALSE(node["flag"].as<bool>());
    EXPECT_TRUE(node["empty_map"].IsMap());
    EXPECT_EQ(node["empty_map"].size(), 0u);
    EXPECT_TRUE(node["empty_list"].IsSequence());
    EXPECT_EQ(node["nested"][0]["name"].as<std::string>(), "a");
    EXPECT_EQ(node["nested"][0]["list"][1].as<int>(), 2);
    EXPECT_EQ(node["nested"][1][0].as<std::string>(), "x");
    EXPECT_EQ(node["nvidia.com/gpu"].as<std::string>(), "8");
    EXPECT_EQ(node["nvidia.com/gpu"].Tag(), "!");
}

TEST(K8sYamlText, KeepsTheTreesKeyOrder) {
    Tree tree;
    tree["zeta"] = 1;
    tree["alpha"] = 2;
    EXPECT_EQ(to_yaml(tree), "zeta: 1\nalpha: 2\n");
    EXPECT_EQ(to_yaml(Tree{{"list", {"a", "b"}}}), "list:\n- a\n- b\n");
    EXPECT_EQ(to_yaml(Tree{{"items", Tree::array({Tree{{"k", 1}, {"v", 2}}})}}), "items:\n- k: 1\n  v: 2\n");
}

}  // namespace
}  // namespace pdctl::exporter
