// `pdctl doctor` live checks over real SSH on the 8 test hosts (tests/cluster/up.sh), with the podman
// of every host and fake hardware facts: each host gets a fake sysfs tree and an nvidia-smi stub that
// prints the recorded H200 outputs (tests/fixtures/), delivered to the SSH session through
// ~/.ssh/environment (PATH, PDCTL_SYSFS_ROOT; up.sh sets PermitUserEnvironment). Faults, one per host:
// n2 mlx5_1 DOWN, n3 eth0 down, n6 a busy GPU, n7 no nvidia-smi. Only the test cluster's own subnet is
// contacted.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "fake_gpu.hpp"
#include "ssh_cluster.hpp"
#include "text_edit.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// Fixed script; the host's facts arrive as positional parameters: eth0 state, mlx5_1 state, then the
// two nvidia-smi answers ("" and "" for no nvidia-smi at all).
const std::string kFakeFacts =
    std::string("install_nvidia_smi_stub() {") + kInstallNvidiaSmiStub + "}\n" + R"SH(
set -e
rm -rf /root/fake-sys /root/fake-bin
mkdir -p /root/fake-sys/class/net/eth0 /root/fake-sys/class/net/lo /root/fake-bin
printf '%s\n' "$1" >/root/fake-sys/class/net/eth0/operstate
if [ "$1" = up ]; then echo 0x1003; else echo 0x1002; fi >/root/fake-sys/class/net/eth0/flags
echo unknown >/root/fake-sys/class/net/lo/operstate
echo 0x9 >/root/fake-sys/class/net/lo/flags
for dev in mlx5_0 mlx5_1; do mkdir -p /root/fake-sys/class/infiniband/$dev/ports/1; done
echo '4: ACTIVE' >/root/fake-sys/class/infiniband/mlx5_0/ports/1/state
printf '%s\n' "$2" >/root/fake-sys/class/infiniband/mlx5_1/ports/1/state
if [ -n "$3" ]; then
  install_nvidia_smi_stub "$3" "$4"
fi
printf '%s\n' 'PATH=/root/fake-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  'PDCTL_SYSFS_ROOT=/root/fake-sys' >/root/.ssh/environment
)SH";

// Setting up or clearing the fake facts on a host takes a few shell commands.
constexpr std::chrono::seconds kHostCommandBound{30};

class SshDoctorTest : public SshPdctlTest {
  protected:
    void SetUp() override {
        SshPdctlTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        std::map<std::string, std::string> env;
        std::istringstream in(slurp(ssh_cluster_env_path()));
        for (std::string line; std::getline(in, line);)
            if (const auto eq = line.find('='); eq != std::string::npos)
                env[line.substr(0, eq)] = line.substr(eq + 1);
        image = env["PDT_IMAGE"];
        if (image.empty()) {
            const char* ci = std::getenv("CI");
            if (ci && *ci) FAIL() << "CI: the test hosts must have podman and the pdsim image (PDT_IMAGE)";
            GTEST_SKIP() << "the test hosts have no podman image: run `ctest -L ssh` with podman installed";
        }
    }
    void TearDown() override {
        if (executor)
            on_every_host([](int) {
                return exec::Command{
                    {"rm", "-rf", "/root/fake-sys", "/root/fake-bin", "/root/.ssh/environment"},
                    {},
                    kHostCommandBound};
            });
        SshPdctlTest::TearDown();
    }

    // tests/profiles/ssh-podman with one GPU per node (the fixtures are a 1-GPU H200), two HCAs, and
    // the memlock ulimit a real RDMA container gets, unless it is to start: the test hosts' podman
    // may not raise that limit.
    std::filesystem::path write_profile(bool to_start = false) {
        const auto source =
            std::filesystem::path(pdctl::testing::source_dir()) / "tests" / "profiles" / "ssh-podman";
        const auto dir = temp / "profile";
        std::filesystem::create_directories(dir);
        for (const auto& entry : std::filesystem::directory_iterator(source)) {
            std::string text = slurp(entry.path());
            const auto name = entry.path().filename().string();
            if (name == "pdctl.yaml") {
                replace_all(text, "cluster: sshpod", "cluster: sshdoctor");
                replace_all(text, "identity: /tmp/pdctl-test-cluster/client/id_ed25519",
                            "identity: " + cluster.key);
                replace_all(text, "image: localhost/pdctl/pdsim:test", "image: " + image);
                replace_all(text, "gpus_per_node: 8", "gpus_per_node: 1");
                replace_all(text, "tp_size: 32", "tp_size: 4");
                replace_all(text, "ep_size: 32", "ep_size: 4");
                if (!to_start)
                    replace_all(text, "--cap-add, SYS_PTRACE]",
                                "--cap-add, SYS_PTRACE, --ulimit, memlock=-1]");
                use_cluster_addresses(text);
            }
            if (name == "prefill.env" || name == "decode.env") text += "export NCCL_IB_HCA=mlx5_0,mlx5_1\n";
            spit(dir / name, text);
        }
        return dir / "pdctl.yaml";
    }

    void fake_healthy_hosts(int busy);

    std::string image;
};

TEST_F(SshDoctorTest, LiveChecksFindEachHostsFaultAndNothingElse) {
    const auto idle_query = gpu_fixture("nvidia-smi-h200-idle.query-gpu.csv");
    const auto idle_apps = gpu_fixture("nvidia-smi-h200-idle.compute-apps.csv");
    const auto busy_query = gpu_fixture("nvidia-smi-h200-busy.query-gpu.csv");
    const auto busy_apps = gpu_fixture("nvidia-smi-h200-busy.compute-apps.csv");
    const auto setup = on_every_host([&](int i) {
        std::vector<std::string> argv = {
            "sh", "-c", kFakeFacts, "fake-facts", i == 3 ? "down" : "up", i == 2 ? "1: DOWN" : "4: ACTIVE"};
        if (i == 7) {
            argv.insert(argv.end(), {"", ""});
        } else {
            argv.push_back(i == 6 ? busy_query : idle_query);
            argv.push_back(i == 6 ? busy_apps : idle_apps);
        }
        return exec::Command{argv, {}, kHostCommandBound};
    });
    for (std::size_t i = 0; i < setup.size(); ++i)
        ASSERT_TRUE(setup[i].ok()) << "host " << i + 1 << setup[i].err;

    const auto config = write_profile();
    const auto started = Clock::now();
    const auto run = pdctl(config, {"doctor", "--json"});
    const auto wall_ms = elapsed_ms(started);
    std::cout << "pdctl doctor on 8 SSH hosts: " << wall_ms << " ms wall\n";
    RecordProperty("doctor_wall_ms", static_cast<int>(wall_ms));
    ASSERT_EQ(run.exit_code, 10) << "live errors, no config error, every node reachable\n"
                                 << run.out << run.err;
    const auto document = json::parse(run.out);

    // Every live finding, as "ID severity node", except SYS002: free disk depends on this machine.
    std::multiset<std::string> found;
    for (const auto& f : document["findings"]) {
        const std::string id = f["id"];
        if (id.starts_with("PD")) {
            EXPECT_NE(f["severity"], "error") << f.dump();
            continue;
        }
        if (id == "SYS002") {
            EXPECT_EQ(f["severity"], "warn") << f.dump();
            continue;
        }
        found.insert(id + " " + f["severity"].get<std::string>() + " " + f["node"].get<std::string>());
    }
    const std::multiset<std::string> expected = {"RDMA002 error n2", "NET004 error n3", "GPU003 warn n6",
                                                 "GPU001 error n7"};
    EXPECT_EQ(found, expected) << run.out;

    const auto message_of = [&](const std::string& id) {
        for (const auto& f : document["findings"])
            if (f["id"] == id) return f["message"].get<std::string>();
        return std::string();
    };
    EXPECT_EQ(message_of("RDMA002"),
              "RDMA device mlx5_1 (NCCL_IB_HCA of prefill) on n2 is not ACTIVE: port 1 1: DOWN");
    EXPECT_EQ(message_of("NET004"),
              "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME select eth0, but it is not up on n3 (eth0 down)");
    EXPECT_EQ(message_of("GPU003"),
              "GPUs on n6 are busy: GPU 0 19601 of 143771 MiB used; compute processes: pid 432 python3 "
              "(19592 MiB)");
    EXPECT_EQ(message_of("GPU001"),
              "n7 is not a GPU node: nvidia-smi is not on PATH, and decode needs 1 GPU");

    const auto& live = document["live"];
    EXPECT_EQ(live["nodes"], 8);
    EXPECT_EQ(live["unreachable"], 0);
    // Container CLI, image and same image id on all 8 hosts, clock: checked and passed.
    EXPECT_GE(live["checks"].get<int>(), 8 * 6);
    EXPECT_LT(live["elapsed_ms"].get<int>(), 30000);

    // --static touches no node and finds no error in this config.
    const auto static_run = pdctl(config, {"doctor", "--static"});
    EXPECT_EQ(static_run.exit_code, 0) << static_run.out << static_run.err;
    EXPECT_NE(static_run.out.find("(no node touched)"), std::string::npos) << static_run.out;
}

// Every host healthy with an idle GPU, except that `busy` (1-based, 0 = none) has the busy H200's.
void SshDoctorTest::fake_healthy_hosts(int busy) {
    const auto setup = on_every_host([&](int i) {
        const bool is_busy = i == busy;
        return exec::Command{{"sh", "-c", kFakeFacts, "fake-facts", "up", "4: ACTIVE",
                              gpu_fixture(is_busy ? "nvidia-smi-h200-busy.query-gpu.csv"
                                                  : "nvidia-smi-h200-idle.query-gpu.csv"),
                              gpu_fixture(is_busy ? "nvidia-smi-h200-busy.compute-apps.csv"
                                                  : "nvidia-smi-h200-idle.compute-apps.csv")},
                             {},
                             kHostCommandBound};
    });
    for (std::size_t i = 0; i < setup.size(); ++i)
        ASSERT_TRUE(setup[i].ok()) << "host " << i + 1 << setup[i].err;
}

TEST_F(SshDoctorTest, PreflightNamesAForeignGpuProcessAndATakenPortAndStartsNothing) {
    fake_healthy_hosts(6);
    // What the old script left behind on n3: a server on prefill's port 30000.
    const auto squat = executor->run(
        cluster.node(3), exec::Command{{"sh", "-c",
                                        "setsid \"$0\" mooncake_master --port 30000 --metrics_port 30001 "
                                        "</dev/null >/dev/null 2>&1 & echo $!",
                                        pdctl::testing::pdsim_binary()},
                                       {},
                                       kHostCommandBound});
    ASSERT_TRUE(squat.ok()) << squat.err;
    const auto squatter = std::string(squat.out.substr(0, squat.out.find('\n')));
    const auto config = write_profile();
    // The squatter binds at once; a bounded wait for it keeps a slow host from failing the test.
    bool listening = false;
    for (const auto deadline = Clock::now() + std::chrono::seconds(20);
         !listening && Clock::now() < deadline;) {
        listening =
            executor
                ->run(cluster.node(3),
                      exec::Command{{"sh", "-c", "ss -Htln | grep -q ':30000 '"}, {}, kHostCommandBound})
                .ok();
    }
    ASSERT_TRUE(listening);
    const auto run = pdctl(config, {"start"});
    executor->run(cluster.node(3), exec::Command{{"kill", squatter}, {}, kHostCommandBound});
    EXPECT_EQ(run.exit_code, 10) << run.out << run.err;
    const auto all = run.out + run.err;
    EXPECT_NE(
        all.find("GPU003 GPUs on n6 are busy: GPU 0 19601 of 143771 MiB used; compute processes: pid 432 "
                 "python3 (19592 MiB)"),
        std::string::npos)
        << all;
    EXPECT_NE(all.find("PORT001 port 30000 that prefill rank 2 (--port) binds on n3 is taken: pdsim pid " +
                       squatter + " listens on 0.0.0.0:30000"),
              std::string::npos)
        << all;
    EXPECT_EQ(all.find("started "), std::string::npos) << "a unit started before the preflight passed";
    EXPECT_EQ(pdctl(config, {"status"}).exit_code, 8);
}

// The 8 test hosts as they are, without GPUs or RDMA devices: every node misses its GPUs and both
// HCAs that two variables name. One line per finding was dozens; folded, the same finding on many
// nodes and devices is one line, and -v still logs each (issue 32).
TEST_F(SshDoctorTest, EightHostsWithoutGpusOrRdmaDevicesAreAFewFoldedPreflightLines) {
    const auto config = write_profile();
    const auto run = pdctl(config, {"start"});
    EXPECT_EQ(run.exit_code, 10) << run.out << run.err;
    std::vector<std::string> preflight;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);)
        if (line.find(" preflight: ") != std::string::npos) preflight.push_back(line);
    EXPECT_LE(preflight.size(), 10u) << run.out;
    const auto folded = std::find_if(preflight.begin(), preflight.end(), [](const std::string& line) {
        return line.find("RDMA001 RDMA device mlx5_0–mlx5_1 (NCCL_IB_HCA") != std::string::npos &&
               line.find(" of prefill) does not exist on n1–n4: ") != std::string::npos;
    });
    EXPECT_NE(folded, preflight.end()) << run.out;
    EXPECT_EQ(run.out.find("started "), std::string::npos) << "a unit started before the preflight passed";

    const auto verbose = pdctl(config, {"-v", "start"});
    EXPECT_EQ(verbose.exit_code, 10);
    EXPECT_NE(verbose.err.find(
                  "preflight: RDMA001 RDMA device mlx5_1 (NCCL_IB_HCA of prefill) does not exist on n3"),
              std::string::npos)
        << verbose.err;
}

TEST_F(SshDoctorTest, StopWaitsUntilTheGpusAreReleasedAndSaysWhoHoldsThemWhenTheyAreNot) {
    fake_healthy_hosts(0);
    const auto config = write_profile(true);
    const auto start = pdctl(config, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    EXPECT_NE(start.out.find("preflight passed on 8 nodes"), std::string::npos) << start.out;
    // n6's GPU is released three polls after its rank stopped.
    const auto late = [&](int polls) {
        return executor->run(
            cluster.node(6),
            exec::Command{
                {"sh", "-c",
                 "printf '%s' \"$1\" >/root/fake-bin/busy-apps.csv; echo \"$0\" >/root/fake-bin/busy-polls",
                 std::to_string(polls), gpu_fixture("nvidia-smi-h200-busy.compute-apps.csv")},
                {},
                kHostCommandBound});
    };
    ASSERT_TRUE(late(3).ok());
    const auto stop = pdctl(config, {"stop"});
    EXPECT_EQ(stop.exit_code, 0) << stop.out << stop.err;
    EXPECT_NE(stop.out.find("waiting up to 1m00s for the GPUs to be released: n6: pid 432 python3 19592 MiB"),
              std::string::npos)
        << stop.out;
    const auto left = executor->run(
        cluster.node(6), exec::Command{{"cat", "/root/fake-bin/busy-polls"}, {}, kHostCommandBound});
    EXPECT_EQ(left.out, "0\n") << "stop ended before the GPU was released";
    // A GPU that is never released: exit 12 naming the node and the process, after the deadline.
    ASSERT_TRUE(late(1000).ok());
    const auto held = pdctl(config, {"stop", "--gpu-release-timeout", "2s"});
    EXPECT_EQ(held.exit_code, 12) << held.out << held.err;
    EXPECT_NE(
        (held.out + held.err).find("GPU memory is still in use after 2.0s: n6: pid 432 python3 19592 MiB"),
        std::string::npos)
        << held.out << held.err;
}

TEST_F(SshDoctorTest, UnreachableNodeIsNet001AndExitThree) {
    auto config = write_profile();
    // Nothing listens on port 2299 of host 8: connection refused, on an address of the test cluster.
    std::string text = slurp(config);
    const auto n8 = host(8).address;
    replace_all(text, "{name: n8, address: " + n8 + "}",
                "{name: n8, address: " + n8 + ", ssh: {port: 2299}}");
    spit(config, text);
    const auto run = pdctl(config, {"doctor"});
    EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
    EXPECT_NE(run.out.find("ERROR  NET001 n8  n8 (" + n8 + ", ssh root@" + n8 + ":2299) is unreachable: "),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("its other checks were skipped"), std::string::npos);
    EXPECT_NE(run.out.find("checks on 8 nodes passed"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace pdctl::testing
