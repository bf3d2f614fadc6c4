// depends_on: derived from the standard PD order, or explicit; routers' prefill/decode lists.

#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using testing::kMinimalCluster;
using testing::load;
using testing::load_error;
using Strings = std::vector<std::string>;

TEST(ConfigDependencies, DerivedFromTheStandardPdOrder) {
    const Cluster cluster = load(kMinimalCluster);
    EXPECT_TRUE(cluster.find_role("mooncake-master")->depends_on.empty());
    EXPECT_EQ(cluster.find_role("prefill")->depends_on, (Strings{"mooncake-master"}));
    EXPECT_EQ(cluster.find_role("decode")->depends_on, (Strings{"prefill"})) << "P before D";
    EXPECT_EQ(cluster.find_role("router")->depends_on, (Strings{"prefill", "decode"}));
    for (const auto& role : cluster.roles) EXPECT_FALSE(role.depends_on_explicit) << role.name;
}

TEST(ConfigDependencies, DerivedWithSeveralGroupsAndGenericRoles) {
    const Cluster cluster = load(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  d1: {kind: sglang, mode: decode, nodes: [n1]}
  mc1: {kind: mooncake-master, nodes: [n1]}
  p1: {kind: sglang, mode: prefill, nodes: [n1]}
  p2: {kind: sglang, mode: prefill, nodes: [n1]}
  mc2: {kind: mooncake-master, nodes: [n1]}
  web: {kind: generic, nodes: [n1], command: [x], health: {path: /, port: 80}}
)");
    EXPECT_EQ(cluster.find_role("d1")->depends_on, (Strings{"p1", "p2"}));
    EXPECT_EQ(cluster.find_role("p1")->depends_on, (Strings{"mc1", "mc2"}));
    EXPECT_TRUE(cluster.find_role("web")->depends_on.empty());
}

TEST(ConfigDependencies, ExplicitDependsOnIsKept) {
    std::string yaml = kMinimalCluster;
    yaml += "    depends_on: [decode]\n";
    const Cluster cluster = load(yaml);
    EXPECT_TRUE(cluster.find_role("router")->depends_on_explicit);
    EXPECT_EQ(cluster.find_role("router")->depends_on, (Strings{"decode"}));
}

TEST(ConfigDependencies, UnknownAndSelfReferences) {
    std::string yaml = kMinimalCluster;
    yaml += "    depends_on: [decod, router, nothing-like-it]\n";
    EXPECT_EQ(
        load_error(yaml),
        "/c/pdctl.yaml:22:18: error: roles.router.depends_on[0]: unknown role `decod` (hint: did you mean "
        "`decode`?)\n"
        "/c/pdctl.yaml:22:25: error: roles.router.depends_on[1]: a role cannot depend on itself\n"
        "/c/pdctl.yaml:22:33: error: roles.router.depends_on[2]: unknown role `nothing-like-it` (hint: roles "
        "are defined under `roles:`)\n"
        "3 errors in /c/pdctl.yaml");
}

TEST(ConfigDependencies, CycleListsTheRoles) {
    EXPECT_EQ(load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  a: {kind: mooncake-master, nodes: [n1], depends_on: [b]}
  b: {kind: mooncake-master, nodes: [n1], depends_on: [c]}
  c: {kind: mooncake-master, nodes: [n1], depends_on: [a]}
)"),
              "/c/pdctl.yaml:5:3: error: roles.a.depends_on: dependency cycle: a -> b -> c -> a (hint: "
              "remove one of "
              "these dependencies)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(ConfigDependencies, CycleThroughADerivedDependencyExplainsTheDefaultOrder) {
    std::string yaml = kMinimalCluster;
    yaml.insert(yaml.find("  decode:"), "    depends_on: [router]\n");
    EXPECT_EQ(
        load_error(yaml),
        "/c/pdctl.yaml:11:3: error: roles.prefill.depends_on: dependency cycle: prefill -> router -> prefill "
        "(hint: roles without depends_on follow mooncake-master -> prefill -> decode -> router)\n"
        "1 error in /c/pdctl.yaml");
}

TEST(ConfigDependencies, RouterDefaultsToEveryPrefillAndDecodeRole) {
    const Cluster cluster = load(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  p1: {kind: sglang, mode: prefill, nodes: [n1]}
  d1: {kind: sglang, mode: decode, nodes: [n1]}
  p2: {kind: sglang, mode: prefill, nodes: [n1]}
  d2: {kind: sglang, mode: decode, nodes: [n1]}
  lb: {kind: router, nodes: [n1]}
  lb2: {kind: router, nodes: [n1], prefill: [p2], decode: [d1]}
)");
    const Role& lb = *cluster.find_role("lb");
    EXPECT_EQ(lb.prefill_roles, (Strings{"p1", "p2"}));
    EXPECT_EQ(lb.decode_roles, (Strings{"d1", "d2"}));
    EXPECT_EQ(lb.depends_on, (Strings{"p1", "p2", "d1", "d2"}));
    const Role& lb2 = *cluster.find_role("lb2");
    EXPECT_EQ(lb2.prefill_roles, (Strings{"p2"}));
    EXPECT_EQ(lb2.decode_roles, (Strings{"d1"}));
    EXPECT_EQ(lb2.depends_on, (Strings{"p2", "d1"}));
}

TEST(ConfigDependencies, RouterListsMustNameSglangRolesOfTheRightMode) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  mc: {kind: mooncake-master, nodes: [n1]}
  p: {kind: sglang, mode: prefill, nodes: [n1]}
  d: {kind: sglang, mode: decode, nodes: [n1]}
  lb:
    kind: router
    nodes: [n1]
    prefill: [d, mc, pp]
    decode: []
)"),
        "/c/pdctl.yaml:11:15: error: roles.lb.prefill[0]: role `d` is sglang decode, not sglang prefill "
        "(hint: "
        "list roles with kind: sglang and mode: prefill)\n"
        "/c/pdctl.yaml:11:18: error: roles.lb.prefill[1]: role `mc` is mooncake-master, not sglang prefill "
        "(hint: list roles with kind: sglang and mode: prefill)\n"
        "/c/pdctl.yaml:11:22: error: roles.lb.prefill[2]: unknown role `pp` (hint: did you mean `p`?)\n"
        "/c/pdctl.yaml:12:13: error: roles.lb.decode: the router has no decode role (hint: define a role "
        "with "
        "kind: sglang and mode: decode)\n"
        "4 errors in /c/pdctl.yaml");
}

TEST(ConfigDependencies, RouterWithoutAnyDecodeRole) {
    EXPECT_EQ(
        load_error(R"(cluster: a
defaults: {container: {image: i}}
nodes: [{name: n1, address: 10.0.0.1}]
roles:
  p: {kind: sglang, mode: prefill, nodes: [n1]}
  lb: {kind: router, nodes: [n1]}
)"),
        "/c/pdctl.yaml:6:3: error: roles.lb.decode: the router has no decode role (hint: define a role with "
        "kind: sglang and mode: decode)\n"
        "1 error in /c/pdctl.yaml");
}

}  // namespace
}  // namespace pdctl::config
