// `nodes: from-allocation`: SLURM's host lists, scontrol's node addresses, and the cluster file whose
// roles name the allocation's nodes by position (config/slurm_allocation.hpp, detail/slurm_loader.hpp).
#include "pdctl/config/slurm_allocation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

using Names = std::vector<std::string>;

TEST(Hostlist, ExpandsRangesListsAndZeroPaddingInSlurmsOrder) {
    EXPECT_EQ(expand_hostlist("pds[1-3]"), (Names{"pds1", "pds2", "pds3"}));
    EXPECT_EQ(expand_hostlist("gpu[008-010,017],login1"),
              (Names{"gpu008", "gpu009", "gpu010", "gpu017", "login1"}));
    EXPECT_EQ(expand_hostlist("n7"), (Names{"n7"}));
    EXPECT_EQ(expand_hostlist("rack[1-2]-gpu[0-1]"),
              (Names{"rack1-gpu0", "rack1-gpu1", "rack2-gpu0", "rack2-gpu1"}));
    EXPECT_EQ(expand_hostlist(" a[9-11] \n"), (Names{"a9", "a10", "a11"}));
}

TEST(Hostlist, MalformedListsSayWhatIsWrong) {
    const auto error_of = [](const std::string& list) {
        try {
            expand_hostlist(list);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_THAT(error_of("pds[1-3"), HasSubstr("unclosed `[`"));
    EXPECT_THAT(error_of("pds1-3]"), HasSubstr("`]` without `[`"));
    EXPECT_THAT(error_of("pds[3-1]"), HasSubstr("reversed range `3-1`"));
    EXPECT_THAT(error_of("pds[a-b]"), HasSubstr("`a-b` in `pds[a-b]` is not a number"));
    EXPECT_THAT(error_of("pds[]"), HasSubstr("is not a number"));
    EXPECT_THAT(error_of("pds1,,pds2"), HasSubstr("an empty name"));
    EXPECT_THAT(error_of(""), HasSubstr("empty"));
}

TEST(NodeAddresses, ReadsNodeNameAndNodeAddrFromOneLinePerNode) {
    // Two lines as `scontrol --oneliner show node 'pds[1-2]'` printed them on the test cluster
    // (shortened: the fields in between do not matter).
    const std::string output =
        "NodeName=pds1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=1 NodeAddr=10.66.0.1 NodeHostName=pds1 "
        "Version=22.05.8 OS=Linux State=MIXED Partitions=main\n"
        "NodeName=pds2 Arch=x86_64 NodeAddr=10.66.0.2 NodeHostName=pds2 State=IDLE Partitions=main\n"
        "NodeName=pds3 Arch=x86_64 State=IDLE\n";
    const auto nodes = parse_node_addresses(output);
    ASSERT_EQ(nodes.size(), 2u) << "a node without NodeAddr is left out";
    EXPECT_EQ(nodes[0].name, "pds1");
    EXPECT_EQ(nodes[0].address, "10.66.0.1");
    EXPECT_EQ(nodes[1].address, "10.66.0.2");
}

TEST(AllocationPositions, AreOneBasedNumbersOrRanges) {
    EXPECT_THAT(allocation_positions("3"), ElementsAre(3u));
    EXPECT_THAT(allocation_positions("5-8"), ElementsAre(5u, 6u, 7u, 8u));
    EXPECT_TRUE(allocation_positions("n1").empty());
    EXPECT_TRUE(allocation_positions("1-").empty());
    EXPECT_TRUE(allocation_positions("4-2").empty());
}

// The minimal cluster under SLURM with `nodes: from-allocation`, its roles by position.
constexpr const char* kAllocationCluster = R"(cluster: kimi3
executor: slurm
nodes: from-allocation
roles:
  mooncake-master:
    kind: mooncake-master
    nodes: [1]
  prefill:
    kind: sglang
    mode: prefill
    nodes: [1-2]
  decode:
    kind: sglang
    mode: decode
    nodes: [3, 4]
  router:
    kind: router
    nodes: [3]
)";

SlurmAllocation four_nodes() {
    return {"77",
            "gpu[1-4]",
            {{"gpu1", "10.1.0.1"}, {"gpu2", "10.1.0.2"}, {"gpu3", "10.1.0.3"}, {"gpu4", "10.1.0.4"}}};
}

Cluster load_in(const std::string& yaml, const AllocationReader& allocation) {
    return load_cluster(testing::kClusterFile, MemoryFileSource({{testing::kClusterFile, yaml}}), allocation);
}

std::string error_in(const std::string& yaml, const AllocationReader& allocation) {
    try {
        load_in(yaml, allocation);
    } catch (const ConfigError& error) {
        return error.what();
    }
    ADD_FAILURE() << "expected a ConfigError";
    return {};
}

const Role& role(const Cluster& cluster, const std::string& name) {
    for (const auto& each : cluster.roles)
        if (each.name == name) return each;
    throw std::runtime_error("no role " + name);
}

TEST(FromAllocation, TheAllocationsNodesWithTheirAddressesAndRolesByPosition) {
    const auto cluster = load_in(kAllocationCluster, four_nodes);
    EXPECT_EQ(cluster.slurm.allocation, "77");
    EXPECT_EQ(cluster.slurm.allocation_nodelist, "gpu[1-4]");
    ASSERT_EQ(cluster.nodes.size(), 4u);
    EXPECT_EQ(cluster.nodes[2].name, "gpu3");
    EXPECT_EQ(cluster.nodes[2].address, "10.1.0.3");
    EXPECT_EQ(cluster.nodes[2].where.line, 3) << "errors about a node point at `nodes: from-allocation`";
    EXPECT_EQ(role(cluster, "mooncake-master").nodes, (Names{"gpu1"}));
    EXPECT_EQ(role(cluster, "prefill").nodes, (Names{"gpu1", "gpu2"}));
    EXPECT_EQ(role(cluster, "decode").nodes, (Names{"gpu3", "gpu4"}));
    EXPECT_EQ(cluster.coordinator, "gpu1");
}

TEST(FromAllocation, NamesStillWorkBesidePositions) {
    std::string yaml = kAllocationCluster;
    yaml.replace(yaml.find("nodes: [3, 4]"), 13, "nodes: [gpu3, 4]");
    EXPECT_EQ(role(load_in(yaml, four_nodes), "decode").nodes, (Names{"gpu3", "gpu4"}));
}

TEST(FromAllocation, APositionPastTheAllocationIsAnErrorAtItsItem) {
    std::string yaml = kAllocationCluster;
    yaml.replace(yaml.find("nodes: [3, 4]"), 13, "nodes: [3-5]");
    EXPECT_THAT(error_in(yaml, four_nodes),
                HasSubstr("/c/pdctl.yaml:15:13: error: roles.decode.nodes[0]: position 5 is past the "
                          "allocation's 4 nodes (hint: the allocation holds gpu1, gpu2, gpu3, gpu4)"));
    yaml = kAllocationCluster;
    yaml.replace(yaml.find("nodes: [3, 4]"), 13, "nodes: [4-3]");
    EXPECT_THAT(error_in(yaml, four_nodes),
                HasSubstr("roles.decode.nodes[0]: `4-3` is no range of allocation positions"));
    yaml = kAllocationCluster;
    yaml.replace(yaml.find("nodes: [3, 4]"), 13, "nodes: [0]");
    EXPECT_THAT(error_in(yaml, four_nodes), HasSubstr("`0` is no range of allocation positions"));
}

TEST(FromAllocation, NoAllocationIsOneErrorAtTheNodesLineNotOnePerRole) {
    const auto none = []() -> SlurmAllocation {
        throw std::runtime_error("this shell is in no SLURM allocation ($SLURM_JOB_ID is not set)");
    };
    const auto error = error_in(kAllocationCluster, none);
    EXPECT_THAT(error,
                HasSubstr("/c/pdctl.yaml:3:8: error: nodes: `nodes: from-allocation`: this shell is in no "
                          "SLURM allocation ($SLURM_JOB_ID is not set) (hint: run pdctl inside the "
                          "allocation"));
    EXPECT_THAT(error, HasSubstr("1 error"));
    EXPECT_THAT(error_in(kAllocationCluster, {}), HasSubstr("no SLURM allocation can be read here"));
}

TEST(FromAllocation, NeedsExecutorSlurmAndRefusesWhatTheAllocationAlreadyHas) {
    std::string yaml = kAllocationCluster;
    yaml.replace(yaml.find("executor: slurm\n"), 16, "defaults:\n  container: {image: x}\n");
    EXPECT_THAT(error_in(yaml, four_nodes), HasSubstr("`nodes: from-allocation` needs `executor: slurm`"));
    yaml = kAllocationCluster;
    yaml.replace(yaml.find("nodes: from"), 0, "slurm:\n  partition: gpu\n  time_limit: 2h\n  gres: gpu:8\n");
    const auto error = error_in(yaml, four_nodes);
    EXPECT_THAT(error, HasSubstr("slurm.partition: `partition` does nothing with `nodes: from-allocation`"));
    EXPECT_THAT(error, HasSubstr("slurm.time_limit: `time_limit` does nothing"));
    EXPECT_THAT(error, Not(HasSubstr("slurm.gres"))) << "gres is given to the GPU groups' steps";
}

TEST(FromAllocation, WithoutItNumbersAreNodeNames) {
    std::string yaml = testing::kMinimalCluster;
    yaml.replace(yaml.find("nodes: [n2]\n  router"), 11, "nodes: [2]\n");
    EXPECT_THAT(testing::load_error(yaml), HasSubstr("unknown node `2`"));
}

}  // namespace
}  // namespace pdctl::config
