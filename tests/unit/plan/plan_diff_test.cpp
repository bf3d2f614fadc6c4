// What differs between the plan a group runs from and the one a config makes (plan/plan_diff.hpp).
#include "pdctl/plan/plan_diff.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"

namespace pdctl::plan {
namespace {

// Decode's args and env, its image, the rest fixed.
Plan plan_with(const std::string& decode_args, const std::string& decode_env, const std::string& image) {
    const std::string yaml = R"(cluster: x
executor: local
defaults: {runtime: docker, container: {cli: docker, image: sglang:a}, gpus_per_node: 8}
nodes:
  - {name: n1, address: 127.0.0.1}
  - {name: n2, address: 127.0.0.2}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, nodes: [n1], tp_size: 8}
  decode:
    kind: sglang
    mode: decode
    nodes: [n2]
    tp_size: 8
    container: {image: )" + image +
                             R"(}
    args: )" + decode_args + R"(
    env: )" + decode_env + R"(
  router: {kind: router, nodes: [n2]}
)";
    return build_plan(
        config::load_cluster("/x/pdctl.yaml", config::MemoryFileSource({{"/x/pdctl.yaml", yaml}})));
}

const FlagChange* find_flag(const GroupDiff& diff, const std::string& flag) {
    for (const auto& change : diff.flags)
        if (change.flag == flag) return &change;
    return nullptr;
}

TEST(PlanDiff, TheSamePlanIsTheSame) {
    const auto plan = plan_with("[--page-size, '64']", "{A: '1'}", "sglang:a");
    const auto diff = diff_stage(*plan.find_stage("decode"), *plan.find_stage("decode"));
    EXPECT_EQ(diff.change, GroupChange::kSame);
    EXPECT_TRUE(diff.flags.empty());
    EXPECT_TRUE(diff.env.empty());
    EXPECT_FALSE(diff.spec_differs());
}

TEST(PlanDiff, FlagsChangedAddedAndRemovedImageAndEnvAreEachNamed) {
    const auto before =
        plan_with("[--page-size, '64', --enable-metrics, --foo=bar]", "{A: '1', B: '2'}", "sglang:a");
    const auto after =
        plan_with("[--page-size, '128', --max-running-requests, '32']", "{A: '1', C: '3'}", "sglang:b");
    const auto diff = diff_stage(*before.find_stage("decode"), *after.find_stage("decode"));
    EXPECT_EQ(diff.change, GroupChange::kChanged);
    EXPECT_EQ(diff.image_before, "sglang:a");
    EXPECT_EQ(diff.image_after, "sglang:b");
    const auto* page = find_flag(diff, "--page-size");
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(page->before, "64");
    EXPECT_EQ(page->after, "128");
    const auto* metrics = find_flag(diff, "--enable-metrics");
    ASSERT_NE(metrics, nullptr);
    EXPECT_TRUE(metrics->before_present);
    EXPECT_FALSE(metrics->after_present);
    const auto* foo = find_flag(diff, "--foo");
    ASSERT_NE(foo, nullptr);
    EXPECT_EQ(foo->before, "bar");
    const auto* running = find_flag(diff, "--max-running-requests");
    ASSERT_NE(running, nullptr);
    EXPECT_FALSE(running->before_present);
    EXPECT_EQ(running->after, "32");
    EXPECT_EQ(find_flag(diff, "--tp-size"), nullptr) << "an unchanged flag is not listed";
    std::vector<std::string> keys;
    for (const auto& env : diff.env)
        keys.push_back(env.key + (env.before_present ? "-" : "") + (env.after_present ? "+" : ""));
    EXPECT_EQ(keys, (std::vector<std::string>{"B-", "C+"}));
}

TEST(PlanDiff, ASecretEnvValueIsMarkedSecret) {
    const auto before = plan_with("[]", "{HF_TOKEN: hf_one}", "sglang:a");
    const auto after = plan_with("[]", "{HF_TOKEN: hf_two}", "sglang:a");
    const auto diff = diff_stage(*before.find_stage("decode"), *after.find_stage("decode"));
    ASSERT_EQ(diff.env.size(), 1U);
    EXPECT_EQ(diff.env[0].key, "HF_TOKEN");
    EXPECT_TRUE(diff.env[0].secret);
}

TEST(PlanDiff, TheCommandLineReaderTakesEveryFlagForm) {
    const auto line = parse_command_line(
        {"python3", "-m", "sglang.launch_server", "--a", "1", "--b=2", "--c", "--d", "x", "y", "--e"});
    EXPECT_EQ(line.program, (std::vector<std::string>{"python3", "-m", "sglang.launch_server"}));
    const std::vector<std::pair<std::string, std::string>> flags = {
        {"--a", "1"}, {"--b", "2"}, {"--c", ""}, {"--d", "x y"}, {"--e", ""}};
    EXPECT_EQ(line.flags, flags);
}

}  // namespace
}  // namespace pdctl::plan
