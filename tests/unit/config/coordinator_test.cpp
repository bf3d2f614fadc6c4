// `coordinator:`: the node that keeps the deploy lock and the journal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using ::testing::HasSubstr;
using testing::kMinimalCluster;
using testing::load;
using testing::load_error;

TEST(ConfigCoordinator, DefaultsToTheFirstNode) {
    EXPECT_EQ(load(kMinimalCluster).coordinator, "n1");
}

TEST(ConfigCoordinator, NamesANode) {
    EXPECT_EQ(load(std::string("coordinator: n2\n") + kMinimalCluster).coordinator, "n2");
}

// A management host listed only to keep the lock and the journal: the first node's failure (it runs the
// master and prefill rank 0) then leaves the lock and the journal alone (docs/config.md).
TEST(ConfigCoordinator, MayNameANodeThatRunsNoRole) {
    std::string yaml = std::string("coordinator: ops\n") + kMinimalCluster;
    yaml.replace(yaml.find("  - {name: n2, address: 10.0.0.2}\n"), 0, "  - {name: ops, address: 10.0.0.9}\n");
    const auto cluster = load(yaml);
    EXPECT_EQ(cluster.coordinator, "ops");
    for (const auto& role : cluster.roles)
        EXPECT_EQ(std::find(role.nodes.begin(), role.nodes.end(), "ops"), role.nodes.end()) << role.name;
}

TEST(ConfigCoordinator, AnUnknownNodeIsAnErrorAtItsLine) {
    const auto error = load_error(std::string(kMinimalCluster) + "coordinator: n3\n");
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:22:14: error: coordinator: no node named `n3`"));
    EXPECT_THAT(load_error(std::string("coordinator: m1\n") + kMinimalCluster),
                HasSubstr("did you mean `n1`?"));
}

TEST(ConfigCoordinator, MustBeAString) {
    EXPECT_THAT(load_error(std::string("coordinator: [n1]\n") + kMinimalCluster), HasSubstr("coordinator"));
}

TEST(ConfigCoordinator, ANodeCannotBeNamedLock) {
    std::string yaml = kMinimalCluster;
    yaml.replace(yaml.find("name: n2"), 8, "name: lock");
    yaml.replace(yaml.find("nodes: [n2]"), 11, "nodes: [lock]");
    yaml.replace(yaml.find("nodes: [n2]"), 11, "nodes: [lock]");
    const auto error = load_error(yaml);
    EXPECT_THAT(error, HasSubstr("nodes[1].name: node name `lock` is reserved"));
    EXPECT_THAT(error, HasSubstr("<state_dir>/<cluster>/lock"));
}

}  // namespace
}  // namespace pdctl::config
