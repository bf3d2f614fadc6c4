// `start --take-over`: which containers and processes on a node hold what the plan needs without being
// pdctl's, read from the take-over probe's answer (the shipped kimi3 profile: docker, 8 nodes).
#include "pdctl/doctor/takeover.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::doctor {
namespace {

using ::testing::ElementsAre;

const std::string kA(64, 'a');  // the old script's master container
const std::string kB(64, 'b');  // its prefill rank 0 container
const std::string kC(64, 'c');  // pdctl's own unit of this cluster
const std::string kD(64, 'd');  // something else entirely

// n1 as deploy_pd.sh left it: mc-master and the prefill rank 0 in containers without pdctl's labels,
// a stray python3 on the bootstrap port, pdctl's own container, an unrelated one, and sshd.
const std::string kProbe = "container\t" + kA + "\tmc-master\tlmsysorg/sglang:kimi-k3\t\t100\n" +
                           "container\t" + kB + "\tsglang_prefill\tlmsysorg/sglang:kimi-k3\t\t200\n" +
                           "container\t" + kC +
                           "\tpd-kimi3-pro6000-router-0\tlmsysorg/sglang:kimi-k3\tkimi3-pro6000\t400\n" +
                           "container\t" + kD + "\tnginx\tnginx:1.25\t\t500\n" +
                           "listen\t174.1.60.1:50051\t101\n"
                           "listen\t0.0.0.0:30000\t200\n"
                           "listen\t*:8998\t300\n"
                           "listen\t0.0.0.0:22\t1\n"
                           "listen\t[::]:9003\t401\n"

                           "gpu\t201\t19592\n"
                           "proc\t101\t100\t100\tmooncake_master\t" +
                           kA + "\n" + "proc\t100\t90\t100\tsh\t" + kA + "\n" +
                           "proc\t90\t1\t90\tcontainerd-shim\t\n"
                           "proc\t200\t190\t200\tpython3\t" +
                           kB + "\n" +
                           "proc\t201\t200\t200\tpython3\t\n"
                           "proc\t300\t1\t300\tpython3\t\n"
                           "proc\t401\t400\t400\tpython3\t" +
                           kC + "\n" +
                           "pdctl-group\t777\n"
                           "end\n";

struct Kimi3 {
    config::Cluster cluster = config::load_cluster(
        std::string(pdctl::testing::source_dir()) + "/profiles/kimi3-pro6000-pd/pdctl.yaml",
        config::DiskFileSource());
    plan::Plan plan = plan::build_plan(cluster);
};

TEST(Takeover, ParsesEveryFactAndKnowsWhetherTheProbeFinished) {
    const auto facts = parse_takeover_probe(kProbe);
    EXPECT_TRUE(facts.complete);
    ASSERT_EQ(facts.containers.size(), 4u);
    EXPECT_EQ(facts.containers[0].name, "mc-master");
    EXPECT_EQ(facts.containers[2].cluster_label, "kimi3-pro6000");
    EXPECT_EQ(facts.listeners.size(), 5u);
    EXPECT_EQ(facts.listeners[0].host, "174.1.60.1");
    EXPECT_EQ(facts.listeners[0].port, 50051);
    ASSERT_EQ(facts.gpu_processes.size(), 1u);
    EXPECT_EQ(facts.gpu_processes[0].mib, 19592);
    EXPECT_EQ(facts.processes.size(), 7u);
    EXPECT_EQ(facts.processes[0].container_id, kA);
    EXPECT_EQ(facts.pdctl_groups, std::vector<int>{777});
    EXPECT_FALSE(parse_takeover_probe("container\t" + kA + "\tx\ty\t\t1\n").complete);
}

TEST(Takeover, NamesTheOldContainersWithWhatTheyHoldAndLeavesPdctlsAndUnrelatedOnesAlone) {
    const Kimi3 k;
    const auto holders = foreign_holders(k.cluster, k.plan, "n1", parse_takeover_probe(kProbe));
    ASSERT_EQ(holders.size(), 3u);
    EXPECT_TRUE(holders[0].container);
    EXPECT_EQ(holders[0].name, "mc-master");
    EXPECT_EQ(holders[0].pid, 100);
    EXPECT_THAT(holders[0].reasons,
                ElementsAre("port 50051 (mooncake-master rank 0 RPC port)",
                            "runs lmsysorg/sglang:kimi-k3, the image of mooncake-master and prefill"));
    EXPECT_EQ(holders[1].name, "sglang_prefill");
    EXPECT_THAT(holders[1].reasons,
                ElementsAre("port 30000 (prefill rank 0 --port)", "GPU compute process (19592 MiB)",
                            "runs lmsysorg/sglang:kimi-k3, the image of mooncake-master and prefill"));
    // A process outside any container on the bootstrap port.
    EXPECT_FALSE(holders[2].container);
    EXPECT_EQ(holders[2].id, "300");
    EXPECT_EQ(holders[2].name, "python3");
    EXPECT_THAT(holders[2].reasons, ElementsAre("port 8998 (prefill rank 0 bootstrap port)"));
}

TEST(Takeover, PdctlsOwnProcessUnitsAreNotForeign) {
    const Kimi3 k;
    const auto facts = parse_takeover_probe(
        "listen\t0.0.0.0:8998\t300\nproc\t300\t299\t777\tpdsim\t\npdctl-group\t777\nend\n");
    EXPECT_TRUE(foreign_holders(k.cluster, k.plan, "n1", facts).empty());
}

TEST(Takeover, GpusCountOnlyOnNodesThatRunSglangRanks) {
    Kimi3 k;
    // n5 runs decode rank 0 and the router; a node without sglang ranks does not care about GPUs.
    const auto facts = parse_takeover_probe("gpu\t42\t100\nproc\t42\t1\t42\tjupyter\t\nend\n");
    EXPECT_EQ(foreign_holders(k.cluster, k.plan, "n5", facts).size(), 1u);
    std::erase_if(k.plan.stages,
                  [](const plan::Stage& stage) { return stage.kind == config::RoleKind::Sglang; });
    EXPECT_TRUE(foreign_holders(k.cluster, k.plan, "n5", facts).empty());
}

}  // namespace
}  // namespace pdctl::doctor
