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

namespace pdctl::runtime {
namespace {

TEST(SlurmJobs, SqueueLinesOfEveryStateAreReadAndOnlyUnfinishedJobsHoldTheGroup) {
    // The CANCELLED and FAILED lines as the SLURM test cluster printed them (a prefill job cancelled
    // while it pended behind the master's; one ended by SIGTERM, on which pdsim exits non-zero); the
    // others in the same format.
    const auto jobs = parse_slurm_jobs(
        "3|PENDING|Resources|\n5|RUNNING|None|pds[1-4]\n3|CANCELLED|Resources|\n5|FAILED|NonZeroExitCode|pds["
        "1-4]\n"
        "9|COMPLETING|None|pds5\nnot a line\n");
    ASSERT_EQ(jobs.size(), 5u);
    EXPECT_EQ(jobs[0].id, "3");
    EXPECT_TRUE(jobs[0].active());
    EXPECT_FALSE(jobs[0].running());
    EXPECT_EQ(jobs[0].reason, "Resources");
    EXPECT_EQ(jobs[0].nodes, "");
    EXPECT_TRUE(jobs[1].running());
    EXPECT_EQ(jobs[1].nodes, "pds[1-4]");
    EXPECT_FALSE(jobs[2].active());
    EXPECT_FALSE(jobs[3].active());
    EXPECT_EQ(jobs[3].reason, "NonZeroExitCode");
    EXPECT_TRUE(jobs[4].active()) << "COMPLETING: slurmstepd is still on the node";
}

}  // namespace
}  // namespace pdctl::runtime
