// depends_on entries that narrow the gate: `{role: prefill, gate: bootstrap}` and friends.

#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using testing::load;
using testing::load_error;
using Strings = std::vector<std::string>;

// Line 10 is decode's depends_on, which each test fills in.
std::string cluster_with_decode_depends_on(const std::string& depends_on) {
    return "cluster: a\n"
           "defaults: {container: {image: i}}\n"
           "nodes: [{name: n1, address: 10.0.0.1}]\n"
           "roles:\n"
           "  mooncake-master: {kind: mooncake-master, nodes: [n1]}\n"
           "  prefill: {kind: sglang, mode: prefill, nodes: [n1]}\n"
           "  decode:\n"
           "    kind: sglang\n"
           "    mode: decode\n"
           "    depends_on: " +
           depends_on +
           "\n"
           "    nodes: [n1]\n"
           "  router: {kind: router, nodes: [n1], depends_on: [{role: decode, gate: started}, {role: "
           "prefill}]}\n";
}

TEST(ConfigNarrowGates, NamesAndMapsMixInOneList) {
    const Cluster cluster =
        load(cluster_with_decode_depends_on("[{role: prefill, gate: bootstrap}, mooncake-master]"));
    const Role& decode = *cluster.find_role("decode");
    EXPECT_TRUE(decode.depends_on_explicit);
    EXPECT_EQ(decode.depends_on, (Strings{"prefill", "mooncake-master"}));
    EXPECT_EQ(decode.gate_on("prefill"), DependencyGate::Bootstrap);
    EXPECT_EQ(decode.gate_on("mooncake-master"), DependencyGate::Ready);

    const Role& router = *cluster.find_role("router");
    EXPECT_EQ(router.depends_on, (Strings{"decode", "prefill"}));
    EXPECT_EQ(router.gate_on("decode"), DependencyGate::Started);
    EXPECT_EQ(router.gate_on("prefill"), DependencyGate::Ready) << "a map without gate: means ready";
}

TEST(ConfigNarrowGates, DerivedDependenciesGateOnReadiness) {
    const Cluster cluster = load(testing::kMinimalCluster);
    for (const auto& role : cluster.roles) {
        EXPECT_TRUE(role.narrow_gates.empty()) << role.name;
        for (const auto& dependency : role.depends_on)
            EXPECT_EQ(role.gate_on(dependency), DependencyGate::Ready) << role.name << " -> " << dependency;
    }
}

TEST(ConfigNarrowGates, BootstrapNeedsAPrefillRole) {
    EXPECT_EQ(
        load_error(cluster_with_decode_depends_on("[prefill, {role: mooncake-master, gate: bootstrap}]")),
        "/c/pdctl.yaml:10:57: error: roles.decode.depends_on[1].gate: gate `bootstrap` needs an sglang "
        "prefill role; `mooncake-master` is mooncake-master (hint: only prefill rank 0 runs a bootstrap "
        "server; use gate `ready` or `started`)\n"
        "1 error in /c/pdctl.yaml");
}

TEST(ConfigNarrowGates, MistakesInAnEntryAreReportedWhereTheyAre) {
    EXPECT_EQ(
        load_error(cluster_with_decode_depends_on(
            "[{role: prefil, gate: ready}, {role: prefill, gat: bootstrap}, {role: prefill, gate: "
            "boostrap}, [prefill], {gate: started}]")),
        "/c/pdctl.yaml:10:25: error: roles.decode.depends_on[0]: unknown role `prefil` (hint: did you mean "
        "`prefill`?)\n"
        "/c/pdctl.yaml:10:63: error: roles.decode.depends_on[1].gat: unknown key (hint: did you mean "
        "`gate`?)\n"
        "/c/pdctl.yaml:10:102: error: roles.decode.depends_on[2].gate: expected `ready`, `bootstrap` or "
        "`started`, got `boostrap` (hint: did you mean `bootstrap`?)\n"
        "/c/pdctl.yaml:10:113: error: roles.decode.depends_on[3]: expected a role name or a map, got a list "
        "(hint: write `prefill` or `{role: prefill, gate: bootstrap}`)\n"
        "/c/pdctl.yaml:10:124: error: roles.decode.depends_on[4]: missing required key `role` (hint: name "
        "the role this one waits for)\n"
        "5 errors in /c/pdctl.yaml");
}

TEST(ConfigNarrowGates, ARoleListedTwiceIsAnError) {
    EXPECT_EQ(
        load_error(cluster_with_decode_depends_on("[prefill, {role: prefill, gate: bootstrap}]")),
        "/c/pdctl.yaml:10:34: error: roles.decode.depends_on[1]: role `prefill` is listed twice (hint: keep "
        "one entry per role)\n"
        "1 error in /c/pdctl.yaml");
}

}  // namespace
}  // namespace pdctl::config
