// `impl:` of a router role, the older `mini_lb:`, what an image implies, and `entry:`/`version:` of
// the other kinds.
#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "pdctl/config/mooncake_version.hpp"

namespace pdctl::config::testing {
namespace {

// kMinimalCluster with `extra` appended to the router role (and the image replaced).
Cluster with_router(const std::string& extra, const std::string& image = "lmsysorg/sglang:kimi-k3") {
    std::string yaml = kMinimalCluster;
    yaml.replace(yaml.find("lmsysorg/sglang:kimi-k3"), std::string("lmsysorg/sglang:kimi-k3").size(), image);
    return load(yaml + extra);
}

TEST(RouterImpl, ImplNamesTheRouter) {
    EXPECT_EQ(with_router("    impl: minilb\n").find_role("router")->router_impl, RouterImpl::MiniLb);
    EXPECT_EQ(with_router("    impl: sglang-router\n").find_role("router")->router_impl,
              RouterImpl::SglangRouter);
    EXPECT_EQ(with_router("    impl: smg\n").find_role("router")->router_impl, RouterImpl::Smg);
}

TEST(RouterImpl, WithoutImplTheImageDecidesAndSaysSo) {
    const auto seed = *with_router("").find_role("router");
    EXPECT_EQ(seed.router_impl, RouterImpl::MiniLb);
    EXPECT_EQ(seed.router_impl_reason,
              "image lmsysorg/sglang:kimi-k3 names no router: the MiniLB deploy_pd.sh runs");
    const auto smg = *with_router("", "lightseekorg/smg:v1.9.0").find_role("router");
    EXPECT_EQ(smg.router_impl, RouterImpl::Smg);
    EXPECT_EQ(smg.router_impl_reason, "image lightseekorg/smg:v1.9.0 is SMG's");
    EXPECT_EQ(with_router("", "lmsysorg/sgl-model-gateway:latest").find_role("router")->router_impl,
              RouterImpl::SglangRouter);
}

TEST(RouterImpl, TheOlderMiniLbKeyStillWorksAndMustAgreeWithImpl) {
    EXPECT_EQ(with_router("    mini_lb: true\n").find_role("router")->router_impl, RouterImpl::MiniLb);
    EXPECT_EQ(with_router("    mini_lb: false\n").find_role("router")->router_impl, RouterImpl::SglangRouter);
    EXPECT_EQ(with_router("    impl: minilb\n    mini_lb: true\n").find_role("router")->router_impl,
              RouterImpl::MiniLb);
    EXPECT_EQ(
        load_error(std::string(kMinimalCluster) + "    impl: smg\n    mini_lb: true\n"),
        "/c/pdctl.yaml:23:14: error: roles.router.mini_lb: mini_lb: true contradicts impl: smg (hint: drop "
        "mini_lb: impl says which router runs)\n"
        "1 error in /c/pdctl.yaml");
    EXPECT_NE(load_error(std::string(kMinimalCluster) + "    impl: nginx\n").find("roles.router.impl"),
              std::string::npos);
}

TEST(SglangEntry, ServeOrLaunchServer) {
    std::string yaml = kMinimalCluster;
    yaml.replace(yaml.find("    mode: prefill\n"), std::string("    mode: prefill\n").size(),
                 "    mode: prefill\n    entry: serve\n");
    const auto cluster = load(yaml);
    EXPECT_EQ(cluster.find_role("prefill")->entry, SglangEntry::Serve);
    EXPECT_EQ(cluster.find_role("decode")->entry, SglangEntry::LaunchServer);
}

TEST(MooncakeVersion, ParsedOrderedAndCheckedInTheConfig) {
    const auto post1 = parse_mooncake_version("0.3.4.post1");
    ASSERT_TRUE(post1);
    EXPECT_EQ(post1->release, (std::array<int, 3>{0, 3, 4}));
    EXPECT_EQ(post1->post, 1);
    EXPECT_LT(*parse_mooncake_version("0.3.4"), *post1);
    EXPECT_LT(*post1, *parse_mooncake_version("0.3.4.post2"));
    EXPECT_GT(*parse_mooncake_version("0.3.12.post1"), *parse_mooncake_version("0.3.9"));
    for (const char* bad : {"", "0.3", "v0.3.12", "0.3.12.rc1", "0.3.12.post", "0.3.x", "0.3.12.post1x"})
        EXPECT_FALSE(parse_mooncake_version(bad)) << bad;

    std::string yaml = kMinimalCluster;
    yaml.replace(yaml.find("    kind: mooncake-master\n"), std::string("    kind: mooncake-master\n").size(),
                 "    kind: mooncake-master\n    version: 0.3.twelve\n");
    EXPECT_EQ(
        load_error(yaml),
        "/c/pdctl.yaml:10:14: error: roles.mooncake-master.version: not a Mooncake version: `0.3.twelve` "
        "(hint: e.g. 0.3.12.post1, as `pip show mooncake-transfer-engine` prints it)\n"
        "1 error in /c/pdctl.yaml");
}

}  // namespace
}  // namespace pdctl::config::testing
