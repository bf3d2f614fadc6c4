// `groups:`: a role of several groups is one Role per group, and a reference to the role means all
// of its groups.

#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using testing::load;
using testing::load_error;
using Strings = std::vector<std::string>;

// Two 2-node prefill groups and one 2-node decode group on 6 nodes, and a file for the prefill role.
const char* kTwoPrefillGroups = R"(cluster: kimi3
defaults:
  container: {image: lmsysorg/sglang:kimi-k3}
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
  - {name: n3, address: 10.0.0.3}
  - {name: n4, address: 10.0.0.4}
  - {name: n5, address: 10.0.0.5}
  - {name: n6, address: 10.0.0.6}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill:
    kind: sglang
    mode: prefill
    groups: [[n1, n2], [n3, n4]]
  decode: {kind: sglang, mode: decode, nodes: [n5, n6]}
  router: {kind: router, nodes: [n5]}
files:
  - {source: /etc/hostname, dest: /opt/patch.sh, roles: [prefill]}
)";

TEST(RoleGroups, EachGroupIsARoleTheFirstKeepingTheName) {
    const Cluster cluster = load(kTwoPrefillGroups);
    const Role* first = cluster.find_role("prefill");
    const Role* second = cluster.find_role("prefill-2");
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(first->nodes, (Strings{"n1", "n2"}));
    EXPECT_EQ(second->nodes, (Strings{"n3", "n4"}));
    for (const Role* group : {first, second}) {
        EXPECT_EQ(group->entry_name(), "prefill");
        EXPECT_EQ(group->groups, 2);
        EXPECT_EQ(group->kind, RoleKind::Sglang);
        EXPECT_EQ(group->mode, SglangMode::Prefill);
    }
    EXPECT_EQ(first->group, 1);
    EXPECT_EQ(second->group, 2);
    EXPECT_EQ(second->describe_group(), "prefill group 2 of 2");
    EXPECT_EQ(cluster.find_role("decode")->describe_group(), "decode");
    EXPECT_EQ(cluster.find_role("decode")->entry_name(), "decode");
}

TEST(RoleGroups, ReferencesToTheRoleMeanEveryGroup) {
    const Cluster cluster = load(kTwoPrefillGroups);
    EXPECT_EQ(cluster.find_role("decode")->depends_on, (Strings{"prefill", "prefill-2"}));
    EXPECT_EQ(cluster.find_role("router")->prefill_roles, (Strings{"prefill", "prefill-2"}));
    EXPECT_EQ(cluster.find_role("prefill-2")->depends_on, (Strings{"mooncake-master"}));
    ASSERT_EQ(cluster.files.size(), 1u);
    EXPECT_EQ(cluster.files[0].roles, (Strings{"prefill", "prefill-2"}));
}

TEST(RoleGroups, ExplicitListsAndNarrowGatesAreWidenedToEveryGroup) {
    std::string yaml = kTwoPrefillGroups;
    const std::string decode = "  decode: {kind: sglang, mode: decode, nodes: [n5, n6]}\n";
    yaml.replace(yaml.find(decode), decode.size(),
                 "  decode:\n    kind: sglang\n    mode: decode\n    nodes: [n5, n6]\n"
                 "    depends_on: [{role: prefill, gate: bootstrap}]\n");
    const std::string router = "  router: {kind: router, nodes: [n5]}\n";
    yaml.replace(yaml.find(router), router.size(),
                 "  router: {kind: router, nodes: [n5], prefill: [prefill], decode: [decode]}\n");
    const Cluster cluster = load(yaml);
    const Role* decode_role = cluster.find_role("decode");
    EXPECT_EQ(decode_role->depends_on, (Strings{"prefill", "prefill-2"}));
    EXPECT_EQ(decode_role->gate_on("prefill"), DependencyGate::Bootstrap);
    EXPECT_EQ(decode_role->gate_on("prefill-2"), DependencyGate::Bootstrap);
    EXPECT_EQ(cluster.find_role("router")->prefill_roles, (Strings{"prefill", "prefill-2"}));
}

TEST(RoleGroups, MistakesAreNamedAtTheirPosition) {
    std::string yaml = kTwoPrefillGroups;
    const std::string groups = "    groups: [[n1, n2], [n3, n4]]\n";
    const auto at = yaml.find(groups);
    auto with = [&](const std::string& text) {
        std::string changed = yaml;
        changed.replace(at, groups.size(), text);
        return load_error(changed);
    };
    EXPECT_EQ(
        with("    groups: [[n1, n2], [n2, n4]]\n"),
        "/c/pdctl.yaml:16:25: error: roles.prefill.groups[1][0]: node `n2` is listed twice (hint: a node "
        "holds one rank of a role)\n"
        "1 error in /c/pdctl.yaml");
    EXPECT_EQ(with("    groups: [[n1, n2], []]\n"),
              "/c/pdctl.yaml:16:24: error: roles.prefill.groups[1]: needs at least one node\n"
              "1 error in /c/pdctl.yaml");
    EXPECT_EQ(
        with("    groups: [n1, n2]\n"),
        "/c/pdctl.yaml:16:14: error: roles.prefill.groups[0]: expected a list of nodes, got `n1` (hint: "
        "each group is a list whose first node is its rank 0)\n"
        "/c/pdctl.yaml:16:18: error: roles.prefill.groups[1]: expected a list of nodes, got `n2` (hint: "
        "each group is a list whose first node is its rank 0)\n"
        "2 errors in /c/pdctl.yaml");
    EXPECT_EQ(with("    groups: [[n1, n2]]\n    nodes: [n1]\n"),
              "/c/pdctl.yaml:17:5: error: roles.prefill.nodes: `nodes` and `groups` are both given (hint: "
              "`nodes: [...]` is one group; with several, list each under `groups:`)\n"
              "1 error in /c/pdctl.yaml");
    EXPECT_EQ(with("    groups: [[n1, n9]]\n"),
              "/c/pdctl.yaml:16:19: error: roles.prefill.groups[0][1]: unknown node `n9` (hint: did you mean "
              "`n1`?)\n"
              "1 error in /c/pdctl.yaml");
}

TEST(RoleGroups, OnlySglangRolesHaveGroupsAndAGroupNameMustBeFree) {
    std::string yaml = kTwoPrefillGroups;
    const std::string router = "  router: {kind: router, nodes: [n5]}\n";
    std::string routers = yaml;
    routers.replace(routers.find(router), router.size(), "  router: {kind: router, groups: [[n5], [n6]]}\n");
    EXPECT_NE(load_error(routers).find("roles.router.groups: only valid for kind sglang"), std::string::npos)
        << load_error(routers);
    std::string taken = yaml;
    taken.replace(taken.find(router), router.size(),
                  router + "  prefill-2: {kind: sglang, mode: prefill, nodes: [n6]}\n");
    EXPECT_NE(load_error(taken).find("roles.prefill.groups: group 2 would be named `prefill-2`, which is "
                                     "another role"),
              std::string::npos)
        << load_error(taken);
}

}  // namespace
}  // namespace pdctl::config
