// `cache:`: which units keep compiled kernels, where, with which variables, and what their
// fingerprint is made of: the same for every rank of a group, never an address or a port.
#include <gtest/gtest.h>

#include <algorithm>

#include "pdctl/plan/builder.hpp"
#include "pdctl/plan/kernel_cache.hpp"
#include "unit/config/config_test_util.hpp"

namespace pdctl::plan {
namespace {

const char* kCacheCluster = R"(cluster: kimi3
defaults:
  container: {image: lmsysorg/sglang:kimi-k3}
  cache: /var/cache/pdctl
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
  - {name: n3, address: 10.0.0.3}
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [n1]
  prefill:
    kind: sglang
    mode: prefill
    nodes: [n1, n2]
    env: {SGLANG_ENABLE_JIT_DEEPGEMM: "1", NCCL_DEBUG: INFO}
  decode:
    kind: sglang
    mode: decode
    nodes: [n3]
    DECODE_CACHE
  router:
    kind: router
    nodes: [n3]
)";

Plan cache_plan_of(const std::string& decode_cache = "") {
    std::string yaml = kCacheCluster;
    yaml.replace(yaml.find("DECODE_CACHE"), 12, decode_cache);
    return build_plan(config::testing::load(yaml));
}

std::string cache_env_value(const runtime::ProgramSpec& program, const std::string& key) {
    for (const auto& entry : program.env)
        if (entry.key == key) return entry.value;
    return "<unset>";
}

TEST(KernelCachePlan, EverySglangRankMountsItsRolesDirectoryAndPointsSglangIntoIt) {
    const auto plan = cache_plan_of();
    const auto& prefill = plan.find_stage("prefill")->units;
    ASSERT_EQ(prefill.size(), 2u);
    for (const auto& unit : prefill) {
        EXPECT_EQ(unit.cache.dir, "/var/cache/pdctl/kimi3-prefill");
        EXPECT_EQ(unit.cache.mount, kContainerCacheRoot);
        EXPECT_EQ(cache_env_value(unit.program, "SGLANG_CACHE_DIR"), kContainerCacheRoot);
        EXPECT_EQ(cache_env_value(unit.program, "TORCHINDUCTOR_CACHE_DIR"),
                  std::string(kContainerCacheRoot) + "/inductor");
        const auto& argv = unit.start.argv;
        EXPECT_NE(std::find(argv.begin(), argv.end(), "/var/cache/pdctl/kimi3-prefill:/root/.cache/sglang"),
                  argv.end());
    }
    // One fingerprint for the group: rank 1's kernels are rank 0's (no --node-rank, --host, --port).
    EXPECT_EQ(prefill[0].cache.parts, prefill[1].cache.parts);
    const auto& parts = prefill[0].cache.parts;
    EXPECT_NE(std::find(parts.begin(), parts.end(), "env SGLANG_ENABLE_JIT_DEEPGEMM=1"), parts.end());
    EXPECT_NE(std::find(parts.begin(), parts.end(), "image=lmsysorg/sglang:kimi-k3"), parts.end());
    for (const auto& part : parts) {
        EXPECT_EQ(part.find("NCCL_DEBUG"), std::string::npos) << part;  // the network, not the kernels
        EXPECT_EQ(part.find("10.0.0."), std::string::npos) << part;
        EXPECT_EQ(part.find("--node-rank"), std::string::npos) << part;
    }
    EXPECT_EQ(plan.find_stage("decode")->units[0].cache.dir, "/var/cache/pdctl/kimi3-decode");
    EXPECT_FALSE(plan.find_stage("router")->units[0].cache.enabled());
    EXPECT_FALSE(plan.find_stage("mooncake-master")->units[0].cache.enabled());
}

TEST(KernelCachePlan, ARoleTurnsItOffOrMovesItAndTheFingerprintFollows) {
    const auto with = cache_plan_of();
    const auto off = cache_plan_of("cache: off");
    const auto moved = cache_plan_of("cache: /data/kernels");
    const auto& decode_with = with.find_stage("decode")->units[0];
    const auto& decode_off = off.find_stage("decode")->units[0];
    EXPECT_FALSE(decode_off.cache.enabled());
    EXPECT_EQ(cache_env_value(decode_off.program, "SGLANG_CACHE_DIR"), "<unset>");
    EXPECT_EQ(moved.find_stage("decode")->units[0].cache.dir, "/data/kernels/kimi3-decode");
    // A unit started with another cache directory runs another config: diff and start see it.
    EXPECT_NE(decode_with.fingerprint, decode_off.fingerprint);
    EXPECT_NE(decode_with.fingerprint, moved.find_stage("decode")->units[0].fingerprint);
    EXPECT_EQ(with.find_stage("prefill")->units[0].fingerprint,
              off.find_stage("prefill")->units[0].fingerprint);
}

TEST(KernelCachePlan, AVariableTheRoleSetsItselfIsLeftAlone) {
    runtime::ProgramSpec program;
    program.env = {{"TRITON_CACHE_DIR", "/fast/triton", false}};
    const auto env = kernel_cache_env("/root/.cache/sglang", program);
    EXPECT_EQ(
        std::count_if(env.begin(), env.end(), [](const auto& e) { return e.key == "TRITON_CACHE_DIR"; }), 0);
    EXPECT_EQ(env.front().key, "SGLANG_CACHE_DIR");
}

TEST(KernelCacheConfig, ABadDirectoryIsRefusedWithItsLine) {
    std::string yaml = kCacheCluster;
    yaml.replace(yaml.find("DECODE_CACHE"), 12, "cache: relative/dir");
    const auto error = config::testing::load_error(yaml);
    EXPECT_NE(error.find("pdctl.yaml:22:12"), std::string::npos) << error;
    EXPECT_NE(error.find("must be an absolute directory"), std::string::npos) << error;
    std::string on_router = kCacheCluster;
    on_router.replace(on_router.find("DECODE_CACHE"), 12, "");
    on_router.replace(on_router.rfind("nodes: [n3]"), 11, "nodes: [n3]\n    cache: /x");
    EXPECT_NE(config::testing::load_error(on_router).find("cache"), std::string::npos);
}

}  // namespace
}  // namespace pdctl::plan
