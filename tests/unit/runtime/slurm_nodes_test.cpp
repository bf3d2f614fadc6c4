// What SLURM says of a group's nodes before anything is submitted, and of its job after
// (runtime/slurm_job.hpp).
// (runtime/slurm_job.hpp).
#include <gtest/gtest.h>

#include "pdctl/runtime/slurm_job.hpp"

namespace pdctl::runtime {
namespace {

TEST(SlurmNodes, TheQueryAsksSinfoForExactlyTheGroupsNodes) {
    EXPECT_EQ(slurm_node_query({"pds1", "pds3"}).argv,
              (std::vector<std::string>{"sinfo", "--noheader", "--Node", "--nodes=pds1,pds3",
                                        "--format=%N|%T|%E"}));
}

TEST(SlurmNodes, ADrainedNodeIsNamedWithItsReasonAndAnUnknownOneAsUnknown) {
    // Captured from the SLURM test cluster (22.05.8) after `scontrol update nodename=pds3 state=drain
    // reason="bad HCA mlx5_2"`, asked for pds1, pds3 and pds9 (not a node: sinfo leaves it out).
    const auto states = parse_slurm_node_states("pds1|idle|none\npds3|drained|bad HCA mlx5_2\n");
    ASSERT_EQ(states.size(), 2u);
    EXPECT_EQ(states[1].reason, "bad HCA mlx5_2");
    EXPECT_EQ(slurm_node_problems({"pds1", "pds3", "pds9"}, states),
              (std::vector<std::string>{"pds3: drained in SLURM (reason: bad HCA mlx5_2)",
                                        "pds9: not a node of this SLURM cluster (sinfo does not list it)"}));
    EXPECT_TRUE(slurm_node_problems({"pds1"}, states).empty());
}

TEST(SlurmNodes, BusyNodesAreUsableAndSilentOrBrokenOnesAreNot) {
    const auto states = parse_slurm_node_states(
        "n1|allocated|none\nn2|mixed|none\nn3|idle*|none\nn4|down*|Not responding\nn5|draining|upgrade\n"
        "n5|draining|upgrade\nn6|completing|none\n");
    EXPECT_EQ(states.size(), 6u) << "a node in two partitions is listed twice";
    EXPECT_EQ(slurm_node_problems({"n1", "n2", "n3", "n4", "n5", "n6"}, states),
              (std::vector<std::string>{"n3: idle in SLURM, not responding",
                                        "n4: down in SLURM, not responding (reason: Not responding)",
                                        "n5: draining in SLURM (reason: upgrade)"}));
}

}  // namespace
}  // namespace pdctl::runtime
