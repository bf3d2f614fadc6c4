// Every live check on recorded answers: facts → findings, no node touched.
#include <gtest/gtest.h>

#include "doctor_test_util.hpp"

namespace pdctl::doctor::testing {
namespace {

TEST(DoctorNodeChecks, UnreachableNodeIsOneErrorAndNothingElse) {
    NodeProbe probe;
    probe.transport_error = "connect to 10.0.0.1:22: Connection refused";
    const auto result = evaluate_live({sglang_node("n1")}, {probe});
    ASSERT_EQ(result.findings.size(), 1u) << listed(result);
    EXPECT_EQ(result.findings[0].id, "NET001");
    EXPECT_EQ(result.findings[0].node, "n1");
    EXPECT_NE(
        result.findings[0].message.find("n1 (10.0.0.1, ssh root@10.0.0.1:22) is unreachable: connect to "
                                        "10.0.0.1:22: Connection refused"),
        std::string::npos);
    EXPECT_EQ(result.unreachable, 1);
}

TEST(DoctorNodeChecks, ProbeCutOffOrTimedOutIsNet002) {
    NodeProbe cut;
    cut.exit_code = 0;
    cut.out = "probe\t1\nkernel\t6.1\n";
    NodeProbe late;
    late.timed_out = true;
    const auto result = evaluate_live({sglang_node("n1"), sglang_node("n2")}, {cut, late});
    ASSERT_EQ(result.findings.size(), 2u) << listed(result);
    EXPECT_EQ(result.findings[0].id, "NET002");
    EXPECT_NE(result.findings[0].message.find("cut off"), std::string::npos);
    EXPECT_NE(result.findings[1].message.find("did not finish in time"), std::string::npos);
    EXPECT_EQ(result.unreachable, 0);
}

TEST(DoctorNodeChecks, IdleGpuNodePassesEveryCheck) {
    const auto result = evaluate_one(sglang_node("n1"), ProbeAnswer().idle_gpus());
    EXPECT_TRUE(result.findings.empty()) << listed(result);
    EXPECT_EQ(result.checks, result.checks_without_findings);
    EXPECT_GE(result.checks, 4);  // NET001, GPU001-003
}

TEST(DoctorNodeChecks, NoNvidiaSmiIsNotAGpuNode) {
    const auto result = evaluate_one(sglang_node("n1", 8), ProbeAnswer().line({"gpu-query", "missing"}));
    const auto found = with_id(result, "GPU001");
    ASSERT_EQ(found.size(), 1u) << listed(result);
    EXPECT_EQ(found[0].severity, lint::Severity::Error);
    EXPECT_EQ(found[0].message, "n1 is not a GPU node: nvidia-smi is not on PATH, and prefill needs 8 GPUs");
}

TEST(DoctorNodeChecks, SimulatedNodesAreOneInfo) {
    auto a = sglang_node("n1", 8), b = sglang_node("n2", 8);
    a.pdsim_processes = b.pdsim_processes = true;
    const auto answer = ProbeAnswer().line({"gpu-query", "missing"});
    const auto result = evaluate_live({a, b}, {answer.probe(), answer.probe()});
    ASSERT_EQ(result.findings.size(), 1u) << listed(result);
    EXPECT_EQ(result.findings[0].id, "GPU001");
    EXPECT_EQ(result.findings[0].severity, lint::Severity::Info);
    EXPECT_EQ(result.findings[0].node, "n1,n2");
}

TEST(DoctorNodeChecks, FailingNvidiaSmiShowsItsMessage) {
    const auto result = evaluate_one(
        sglang_node("n1"),
        ProbeAnswer()
            .line({"gpu-query", "9"})
            .line({"gpu", "NVIDIA-SMI has failed because it couldn't communicate with the driver."}));
    const auto found = with_id(result, "GPU001");
    ASSERT_EQ(found.size(), 1u) << listed(result);
    EXPECT_NE(found[0].message.find("(exit 9): NVIDIA-SMI has failed"), std::string::npos);
    EXPECT_TRUE(with_id(result, "GPU002").empty());
}

TEST(DoctorNodeChecks, FewerGpusThanGpusPerNode) {
    const auto result = evaluate_one(sglang_node("n1", 8), ProbeAnswer().idle_gpus());
    const auto found = with_id(result, "GPU002");
    ASSERT_EQ(found.size(), 1u) << listed(result);
    EXPECT_EQ(found[0].message, "n1 has 1 GPU, prefill needs gpus_per_node 8");
}

TEST(DoctorNodeChecks, BusyGpuWarnsNamingThePid) {
    const auto result =
        evaluate_one(sglang_node("n1"), ProbeAnswer().gpus(fixture("nvidia-smi-h200-busy.query-gpu.csv"),
                                                           fixture("nvidia-smi-h200-busy.compute-apps.csv")));
    ASSERT_EQ(result.findings.size(), 1u) << listed(result);
    EXPECT_EQ(result.findings[0].id, "GPU003");
    EXPECT_EQ(result.findings[0].severity, lint::Severity::Warn);
    EXPECT_EQ(result.findings[0].message,
              "GPUs on n1 are busy: GPU 0 19601 of 143771 MiB used; compute processes: pid 432 python3 "
              "(19592 MiB)");
}

TEST(DoctorNodeChecks, HcaMissingAndInactive) {
    auto needs = sglang_node("n1");
    needs.rdma = true;
    needs.hcas = {{"NCCL_IB_HCA", "prefill", "mlx5_0", "", true},
                  {"NCCL_IB_HCA", "prefill", "mlx5_1", "1", true},
                  {"--disaggregation-ib-device", "prefill", "mlx5_9", "", false}};
    const auto answer = ProbeAnswer()
                            .idle_gpus()
                            .line({"peermem", "1"})
                            .line({"ib-class", "1"})
                            .line({"ib-device", "mlx5_0"})
                            .line({"ib-port", "mlx5_0", "1", "4: ACTIVE"})
                            .line({"ib-device", "mlx5_1"})
                            .line({"ib-port", "mlx5_1", "1", "1: DOWN"})
                            .line({"ib-port", "mlx5_1", "2", "4: ACTIVE"});
    const auto result = evaluate_one(needs, answer);
    const auto missing = with_id(result, "RDMA001");
    ASSERT_EQ(missing.size(), 1u) << listed(result);
    EXPECT_EQ(missing[0].message,
              "RDMA device mlx5_9 (--disaggregation-ib-device of prefill) does not exist on n1: the node has "
              "mlx5_0, "
              "mlx5_1");
    const auto inactive = with_id(result, "RDMA002");
    ASSERT_EQ(inactive.size(), 1u) << listed(result);
    EXPECT_EQ(inactive[0].message,
              "RDMA device mlx5_1 port 1 (NCCL_IB_HCA of prefill) on n1 is not ACTIVE: port 1 1: DOWN");
}

TEST(DoctorNodeChecks, NcclPrefixMatchesAndNoInfinibandClass) {
    auto needs = sglang_node("n1");
    needs.hcas = {{"NCCL_IB_HCA", "prefill", "mlx5", "", true}};
    const auto ok = evaluate_one(needs, ProbeAnswer()
                                            .idle_gpus()
                                            .line({"ib-class", "1"})
                                            .line({"ib-device", "mlx5_3"})
                                            .line({"ib-port", "mlx5_3", "1", "4: ACTIVE"}));
    EXPECT_TRUE(with_id(ok, "RDMA001").empty() && with_id(ok, "RDMA002").empty()) << listed(ok);
    const auto none = evaluate_one(needs, ProbeAnswer().idle_gpus().line({"ib-class", "0"}));
    ASSERT_EQ(with_id(none, "RDMA001").size(), 1u) << listed(none);
    EXPECT_NE(with_id(none, "RDMA001")[0].message.find("no <sysfs>/class/infiniband at all"),
              std::string::npos);
}

TEST(DoctorNodeChecks, NoPeermemOnAnOldKernelWarns) {
    auto needs = sglang_node("n1");
    needs.rdma = true;
    auto answer = ProbeAnswer().idle_gpus().line({"peermem", "0"});
    EXPECT_TRUE(with_id(evaluate_one(needs, answer), "RDMA003").empty()) << "6.1 has dma-buf";
    answer.line({"kernel", "5.10.0-28-amd64"});  // a later line wins
    const auto found = with_id(evaluate_one(needs, answer), "RDMA003");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, lint::Severity::Warn);
    EXPECT_NE(found[0].message.find("kernel 5.10.0-28-amd64"), std::string::npos);
}

TEST(DoctorNodeChecks, SocketInterfaceMissingOrDownNamedOnce) {
    auto needs = sglang_node("n1");
    needs.ifnames = {{"NCCL_SOCKET_IFNAME", "prefill", "bond1"}, {"GLOO_SOCKET_IFNAME", "prefill", "bond1"}};
    const auto base = ProbeAnswer().idle_gpus().line({"net", "lo", "unknown", "0x9"});
    const auto missing = evaluate_one(needs, base);
    ASSERT_EQ(with_id(missing, "NET003").size(), 1u) << listed(missing);
    EXPECT_EQ(
        with_id(missing, "NET003")[0].message,
        "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select bond1, but n1 has no such interface (it has: lo)");
    auto down_answer = base;
    down_answer.line({"net", "bond1", "down", "0x1002"});
    const auto down = evaluate_one(needs, down_answer);
    ASSERT_EQ(with_id(down, "NET004").size(), 1u) << listed(down);
    EXPECT_EQ(with_id(down, "NET004")[0].message,
              "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select bond1, but it is not up on n1 (bond1 down)");
    auto up_answer = base;
    up_answer.line({"net", "bond1", "up", "0x1003"});
    EXPECT_TRUE(evaluate_one(needs, up_answer).findings.empty());
    needs.ifnames = {{"NCCL_SOCKET_IFNAME", "prefill", "^docker,lo"}};
    EXPECT_TRUE(evaluate_one(needs, base).findings.empty()) << "exclusion lists require nothing";
}

TEST(DoctorNodeChecks, TheComputeAddressMustSitOnTheInterfaceNcclAndGlooUse) {
    auto needs = sglang_node("n1");
    needs.node.compute_address = "10.9.0.1";
    needs.ifnames = {{"NCCL_SOCKET_IFNAME", "prefill", "bond1"}, {"GLOO_SOCKET_IFNAME", "prefill", "bond1"}};
    const auto nics = ProbeAnswer()
                          .idle_gpus()
                          .line({"net", "bond0", "up", "0x1003"})
                          .line({"net", "bond1", "up", "0x1003"})
                          .line({"addr-query", "ok"});
    auto elsewhere = nics;
    elsewhere.line({"addr", "bond0", "10.9.0.1"}).line({"addr", "bond1", "192.168.7.1"});
    const auto wrong = with_id(evaluate_one(needs, elsewhere), "NET005");
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_EQ(wrong[0].severity, lint::Severity::Error);
    EXPECT_EQ(
        wrong[0].message,
        "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select bond1, but n1's compute_address 10.9.0.1 is on "
        "bond0 (bond1 has: bond1 192.168.7.1)");
    auto right = nics;
    right.line({"addr", "bond1", "10.9.0.1"});
    EXPECT_TRUE(with_id(evaluate_one(needs, right), "NET005").empty());
    // An `ip` that is missing is said, not guessed.
    const auto unknown = with_id(
        evaluate_one(
            needs,
            ProbeAnswer().idle_gpus().line({"net", "bond1", "up", "0x1003"}).line({"addr-query", "missing"})),
        "NET005");
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].severity, lint::Severity::Info);
    // Without a compute_address there is nothing to check.
    needs.node.compute_address.clear();
    EXPECT_TRUE(with_id(evaluate_one(needs, elsewhere), "NET005").empty());
}

TEST(DoctorNodeChecks, APortAUnitWillBindThatIsTakenNamesItsHolder) {
    auto needs = sglang_node("n3");
    needs.ports = {{"", 30000, "prefill rank 2 (--port)"},
                   {"10.0.0.3", 8998, "prefill rank 0 (bootstrap port)"},
                   {"10.0.0.3", 5000, "prefill rank 0 (dist-init port)"}};
    const auto answer =
        ProbeAnswer()
            .idle_gpus()
            .line({"listen-query", "ok"})
            .line({"listen", "127.0.0.1:30000", "users:((\"python3\",pid=432,fd=3))"})
            .line({"listen", "[::]:8998", "users:((\"sglang\",pid=77,fd=9),(\"sglang\",pid=78,fd=9))"})
            .line({"listen", "10.0.0.4:5000", "users:((\"other\",pid=5,fd=1))"});
    const auto found = with_id(evaluate_one(needs, answer), "PORT001");
    ASSERT_EQ(found.size(), 2u) << listed(evaluate_one(needs, answer));
    EXPECT_EQ(found[0].severity, lint::Severity::Error);
    EXPECT_EQ(found[0].message,
              "port 30000 that prefill rank 2 (--port) binds on n3 is taken: python3 pid 432 listens on "
              "127.0.0.1:30000");
    EXPECT_EQ(found[1].message,
              "port 8998 that prefill rank 0 (bootstrap port) binds on n3 is taken: sglang pid 77 listens on "
              "[::]:8998");
    // Another address's 5000 does not collide with a bind of 10.0.0.3:5000; without `ss` it is said.
    const auto unknown =
        with_id(evaluate_one(needs, ProbeAnswer().idle_gpus().line({"listen-query", "missing"})), "PORT001");
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].severity, lint::Severity::Info);
    needs.ports.clear();
    EXPECT_TRUE(with_id(evaluate_one(needs, answer), "PORT001").empty()) << "doctor alone asks no ports";
}

TEST(DoctorNodeChecks, ContainerCliMissingOrFailing) {
    NodeNeeds needs;
    needs.node.name = "n5";
    needs.roles = {"router"};
    needs.containers = {{"router", "docker", "img:1", false}};
    const auto missing = evaluate_one(needs, ProbeAnswer().line({"cli", "docker", "missing"}));
    ASSERT_EQ(with_id(missing, "CTR001").size(), 1u) << listed(missing);
    EXPECT_EQ(with_id(missing, "CTR001")[0].message, "container CLI `docker` is not on PATH on n5");
    const auto failing = evaluate_one(
        needs, ProbeAnswer().line({"cli", "docker", "failing",
                                   "Cannot connect to the Docker daemon at unix:///var/run/docker.sock"}));
    ASSERT_EQ(failing.findings.size(), 1u) << listed(failing);
    EXPECT_EQ(
        failing.findings[0].message,
        "`docker info` fails on n5: Cannot connect to the Docker daemon at unix:///var/run/docker.sock");
}

TEST(DoctorNodeChecks, MissingImageWarnsOrFailsWithPullNever) {
    NodeNeeds needs;
    needs.node.name = "n5";
    needs.roles = {"router"};
    needs.containers = {{"router", "podman", "img:1", false}};
    const auto answer = ProbeAnswer()
                            .line({"cli", "podman", "ok", "/var/lib/containers/storage"})
                            .line({"image", "podman", "img:1", "missing", "Error: img:1: image not known"});
    const auto warned = with_id(evaluate_one(needs, answer), "CTR002");
    ASSERT_EQ(warned.size(), 1u);
    EXPECT_EQ(warned[0].severity, lint::Severity::Warn);
    needs.containers[0].never_pull = true;
    const auto failed = with_id(evaluate_one(needs, answer), "CTR002");
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].severity, lint::Severity::Error);
    EXPECT_EQ(failed[0].message, "image img:1 is not on n5, and the role's options say --pull never");
}

TEST(DoctorNodeChecks, ImageIdDifferentFromTheMajority) {
    std::vector<NodeNeeds> needs;
    std::vector<NodeProbe> probes;
    for (int i = 1; i <= 3; ++i) {
        NodeNeeds node;
        node.node.name = "n" + std::to_string(i);
        node.roles = {"prefill"};
        node.containers = {{"prefill", "docker", "sglang:k3", false}};
        needs.push_back(node);
        const std::string id = i == 2 ? "sha256:222222222222ffff" : "sha256:111111111111ffff";
        probes.push_back(ProbeAnswer()
                             .line({"cli", "docker", "ok", "/var/lib/docker"})
                             .line({"image", "docker", "sglang:k3", "ok", id})
                             .probe());
    }
    const auto result = evaluate_live(needs, probes);
    const auto found = with_id(result, "CTR003");
    ASSERT_EQ(found.size(), 1u) << listed(result);
    EXPECT_EQ(found[0].node, "n2");
    EXPECT_EQ(found[0].message, "image sglang:k3 on n2 is 222222222222, but 2 of 3 nodes have 111111111111");
}

TEST(DoctorNodeChecks, MemlockForProcessesAndContainers) {
    auto needs = sglang_node("n1");
    needs.rdma = needs.process_rdma = true;
    auto answer = ProbeAnswer().idle_gpus().line({"peermem", "1"}).line({"memlock", "8192"});
    const auto process = with_id(evaluate_one(needs, answer), "SYS001");
    ASSERT_EQ(process.size(), 1u);
    EXPECT_NE(process[0].message.find("is 8192 KiB, not unlimited"), std::string::npos);
    needs.process_rdma = false;
    needs.containers_without_memlock = {"prefill"};
    const auto container = with_id(evaluate_one(needs, answer), "SYS001");
    ASSERT_EQ(container.size(), 1u);
    EXPECT_NE(container[0].fix.find("--ulimit, memlock=-1"), std::string::npos);
}

TEST(DoctorNodeChecks, PySpyMissingOnTheHostOrInTheImageIsSys004) {
    auto needs = sglang_node("n1");
    needs.stack_tools = {{"prefill", "py-spy", "", ""}, {"decode", "py-spy", "docker", "sglang:k3"}};
    const auto answer =
        ProbeAnswer()
            .idle_gpus()
            .line({"program", "-", "-", "py-spy", "missing"})
            .line({"program", "docker", "sglang:k3", "py-spy", "ok", "/usr/local/bin/py-spy"});
    const auto found = with_id(evaluate_one(needs, answer), "SYS004");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, lint::Severity::Warn);
    EXPECT_EQ(found[0].message, "`py-spy` is not on PATH on n1: `pdctl stack` cannot dump prefill's ranks");
    EXPECT_NE(found[0].fix.find("pip install py-spy"), std::string::npos);
    const auto in_image =
        ProbeAnswer().idle_gpus().line({"program", "docker", "sglang:k3", "py-spy", "missing"});
    needs.stack_tools.erase(needs.stack_tools.begin());
    const auto image = with_id(evaluate_one(needs, in_image), "SYS004");
    ASSERT_EQ(image.size(), 1u);
    EXPECT_EQ(image[0].message,
              "`py-spy` is not on PATH in image sglang:k3 on n1: `pdctl stack` cannot dump decode's ranks");
    // The image is not on the node: nothing was looked up, CTR002 reports it.
    EXPECT_TRUE(with_id(evaluate_one(needs, ProbeAnswer().idle_gpus()), "SYS004").empty());
}

TEST(DoctorNodeChecks, DiskSpacePerFileSystemAgainstItsLargestNeed) {
    auto needs = sglang_node("n1");
    needs.containers = {{"prefill", "docker", "img", false}};
    const auto answer = ProbeAnswer()
                            .idle_gpus()
                            .line({"cli", "docker", "ok", "/var/lib/docker"})
                            .line({"image", "docker", "img", "ok", "sha256:1"})
                            .line({"df", "/var/lib/docker", std::to_string(20LL * 1024 * 1024), "/"})
                            .line({"df", "/var/lib/pdctl", std::to_string(20LL * 1024 * 1024), "/"});
    const auto found = with_id(evaluate_one(needs, answer), "SYS002");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].message,
              "20 GiB free on / (docker storage /var/lib/docker, state_dir /var/lib/pdctl) on n1, less than "
              "50 GiB");
    NodeNeeds process = sglang_node("n1");
    const auto small = ProbeAnswer().idle_gpus().line({"df", "/var/lib/pdctl", "524288", "/var"});
    const auto low = with_id(evaluate_one(process, small), "SYS002");
    ASSERT_EQ(low.size(), 1u);
    EXPECT_EQ(low[0].message, "0.5 GiB free on /var (state_dir /var/lib/pdctl) on n1, less than 1.0 GiB");
}

TEST(DoctorNodeChecks, ClockSkewAgainstTheMedianBeyondTheRoundTrip) {
    std::vector<NodeNeeds> needs;
    for (int i = 1; i <= 4; ++i) needs.push_back(sglang_node("n" + std::to_string(i)));
    const auto answer = ProbeAnswer().idle_gpus();
    std::vector<NodeProbe> probes = {answer.probe(0.2), answer.probe(0.3), answer.probe(2.5),
                                     answer.probe(-7)};
    const auto result = evaluate_live(needs, probes);
    const auto found = with_id(result, "SYS003");
    ASSERT_EQ(found.size(), 2u) << listed(result);
    EXPECT_EQ(found[0].node, "n3");
    EXPECT_EQ(found[0].severity, lint::Severity::Warn);
    EXPECT_EQ(found[0].message, "the clock of n3 is 2.2 s ahead of the other nodes' (median; ±0.02 s)");
    EXPECT_EQ(found[1].node, "n4");
    EXPECT_EQ(found[1].severity, lint::Severity::Error);
    // A skew within the round trip's uncertainty is not reported.
    probes[2].clock.uncertainty_seconds = 1.5;
    EXPECT_EQ(with_id(evaluate_live(needs, probes), "SYS003").size(), 1u);
}

}  // namespace
}  // namespace pdctl::doctor::testing
