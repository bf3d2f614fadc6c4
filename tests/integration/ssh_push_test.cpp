// `pdctl push` over real SSH/SFTP to the 8 hosts of the SSH test cluster (tests/cluster/up.sh): a 64 MiB
// wheel (many SFTP writes) and a small script to every host, every copy checked with the host's own
// sha256sum, a second push that sends nothing, a changed copy on one host sent again alone, and the
// failures an operator meets (a directory in the way, a host that refuses SSH). Every host has its own /root,
// so the files land there. Only the cluster's own addresses (10.77.0.0/24) are contacted.
#include <gtest/gtest.h>

#include <future>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "ssh_cluster.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

constexpr const char* kRemoteDir = "/root/pdctl-push-test";
// Correctness, not speed: 64 MiB is hundreds of SFTP writes per host, enough for every path of the
// transfer and its verification, at a few seconds of CPU. The speed of a 1 GiB push to 8 hosts is
// measured by bench/run's push scenario (docs/benchmarks.md): a suite that hashed and encrypted 8 GiB
// on both ends of this machine's 2 cores took them from the timing-sensitive tests beside it for
// about 3 min.
constexpr std::size_t kWheelBytes = std::size_t(64) << 20;
// A hang guard: the ASan pass runs this at a lower priority beside the gcc tests.
constexpr std::chrono::minutes kPushBound{4};

class SshPushTest : public SshPdctlTest {
  protected:
    void SetUp() override {
        SshPdctlTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        on_every_host(std::string("rm -rf /root/pdctl-state ") + kRemoteDir);
    }
    void TearDown() override {
        if (executor) on_every_host(std::string("rm -rf /root/pdctl-state ") + kRemoteDir);
        SshPdctlTest::TearDown();
    }

    // A profile of the 8 hosts with one role (push needs none running) and the given files.
    std::filesystem::path write_profile(const std::string& files_yaml) {
        std::string yaml =
            "cluster: sshpush\nexecutor: ssh\nstate_dir: /root/pdctl-state\n"
            "defaults:\n  ssh: {user: root, identity: " +
            cluster.key + "}\n  runtime: process\nnodes:\n";
        for (std::size_t i = 0; i < cluster.hosts.size() && i < 8; ++i)
            yaml += "  - {name: n" + std::to_string(i + 1) + ", address: " + cluster.hosts[i].address + "}\n";
        yaml +=
            "roles:\n  app: {kind: generic, nodes: [n1], command: [sleep, '1000'], health: {path: /, port: "
            "9}}\nfiles:\n" +
            files_yaml;
        const auto path = temp / "pdctl.yaml";
        spit(path, yaml);
        return path;
    }

    // `size` bytes: a random MiB repeated (SSH does not compress, so it costs what random data costs).
    std::filesystem::path make_file(const std::string& name, std::size_t size) const {
        std::string block(1 << 20, '\0');
        std::mt19937_64 random(42);
        for (auto& c : block) c = static_cast<char>(random());
        const auto path = temp / name;
        std::ofstream out(path, std::ios::binary);
        for (std::size_t written = 0; written < size; written += block.size())
            out.write(block.data(), static_cast<std::streamsize>(std::min(block.size(), size - written)));
        return path;
    }

    // What the operator's own sha256sum says, independent of pdctl's hashing: a fraction of a second of
    // CPU for 64 MiB, bounded generously for a loaded machine (tests/stress).
    static std::string local_sha256(const std::filesystem::path& path) {
        return local({"sha256sum", path.string()}, {}, std::chrono::minutes(1)).out.substr(0, 64);
    }
};

TEST_F(SshPushTest, AWheelToEightHostsIsVerifiedOnEachAndASecondPushSendsNothing) {
    const auto big = make_file("mooncake-0.3.12.post1.whl", kWheelBytes);
    const auto script = temp / "patch_k3_sm120.py";
    spit(script, "print('patched sm120')\n");
    const auto config =
        write_profile(std::string("  - {source: patch_k3_sm120.py, dest: ") + kRemoteDir +
                      "/tmp/patch_k3_sm120.py, mode: \"0755\"}\n"
                      "  - {source: mooncake-0.3.12.post1.whl, dest: " +
                      kRemoteDir + "/data/flashkda_deploy/wheels/mooncake-0.3.12.post1.whl}\n");
    const auto big_sha = local_sha256(big);
    const auto script_size = std::filesystem::file_size(script);

    const auto first = pdctl(config, {"--json", "push"}, "home", kPushBound);
    ASSERT_EQ(first.exit_code, 0) << first.dump();
    const auto end = first.events("push_end");
    ASSERT_EQ(end.size(), 1u) << first.dump();
    EXPECT_EQ(end[0]["bytes_sent"], 8 * (kWheelBytes + script_size));
    EXPECT_EQ(end[0]["nodes_complete"], 8);
    const auto nodes = first.events("push_node");
    ASSERT_EQ(nodes.size(), 8u);
    for (const auto& node : nodes) EXPECT_EQ(node["in_place"], 2) << node.dump();
    std::cout << "[ measured ] push of 64 MiB + 1 script to 8 hosts: " << first.ms << " ms\n";

    // Each host's own sha256sum and stat agree; no temporary file is left anywhere.
    const auto checks =
        on_every_host(std::string("cd ") + kRemoteDir +
                      " && sha256sum data/flashkda_deploy/wheels/mooncake-0.3.12.post1.whl | "
                      "cut -c1-64 && stat -c %a tmp/patch_k3_sm120.py && find . -name '*.pdctl-tmp-*'");
    for (std::size_t i = 0; i < checks.size(); ++i) {
        ASSERT_TRUE(checks[i].ok()) << cluster.hosts[i].name << ": " << exec::failure_reason(checks[i]);
        EXPECT_EQ(checks[i].out, big_sha + "\n755\n") << cluster.hosts[i].name;
    }

    const auto second = pdctl(config, {"--json", "push"}, "home", kPushBound);
    ASSERT_EQ(second.exit_code, 0) << second.dump();
    EXPECT_EQ(second.events("push_end").at(0)["bytes_sent"], 0);
    for (const auto& file : second.events("push_file")) EXPECT_EQ(file["status"], "identical") << file.dump();
    std::cout << "[ measured ] second push (all identical, sha256 of 64 MiB on 8 hosts): " << second.ms
              << " ms\n";

    // One host's copy changed by hand: only that copy travels again.
    ASSERT_TRUE(executor
                    ->run(cluster.node(3),
                          exec::Command{{"sh", "-c",
                                         std::string("echo x >> ") + kRemoteDir +
                                             "/data/flashkda_deploy/wheels/mooncake-0.3.12.post1.whl"},
                                        {},
                                        std::chrono::seconds(30)})
                    .ok());
    const auto third = pdctl(config, {"--json", "push"}, "home", kPushBound);
    ASSERT_EQ(third.exit_code, 0) << third.dump();
    EXPECT_EQ(third.events("push_end").at(0)["bytes_sent"], kWheelBytes);
    for (const auto& file : third.events("push_file")) {
        const bool changed =
            file["node"] == "n3" && file["dest"].get<std::string>().find(".whl") != std::string::npos;
        EXPECT_EQ(file["status"], changed ? "sent" : "identical") << file.dump();
    }
}

// --relay: the wheel goes up once, to n1, and every host forwards it to the next as it arrives; each
// host's copy is checked by its own sha256sum, and nothing of the relay is left behind.
TEST_F(SshPushTest, RelayedThroughAChainOfEightHostsEveryCopyIsWholeAndVerified) {
    const auto big = make_file("mooncake-0.3.12.post1.whl", kWheelBytes);
    const auto config = write_profile(std::string("  - {source: mooncake-0.3.12.post1.whl, dest: ") +
                                      kRemoteDir + "/wheels/mooncake-0.3.12.post1.whl, mode: \"0640\"}\n");
    const auto big_sha = local_sha256(big);
    const auto relayed =
        pdctl(config, {"--json", "push", "--relay", "--relay-port", "29611"}, "home", kPushBound);
    ASSERT_EQ(relayed.exit_code, 0) << relayed.dump();
    const auto files = relayed.events("push_file");
    ASSERT_EQ(files.size(), 8u) << relayed.dump();
    // Each copy names the host that forwarded it: none for n1 (uploaded from here), then n1 for n2, ...
    std::map<std::string, std::string> forwarded_by;
    for (const auto& file : files) {
        EXPECT_EQ(file["status"], "sent") << file.dump();
        EXPECT_FALSE(file.contains("relay_error")) << file.dump();
        forwarded_by[file["node"]] = file.value("relayed_from", "");
    }
    EXPECT_EQ(forwarded_by["n1"], "");
    for (int n = 2; n <= 8; ++n)
        EXPECT_EQ(forwarded_by["n" + std::to_string(n)], "n" + std::to_string(n - 1)) << "n" << n;
    const auto end = relayed.events("push_end");
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(end[0]["bytes_sent"], 8 * kWheelBytes);
    EXPECT_EQ(end[0]["bytes_uploaded"], kWheelBytes) << "the control node's uplink carried it once";
    const auto checks =
        on_every_host(std::string("cd ") + kRemoteDir +
                      " && sha256sum wheels/mooncake-0.3.12.post1.whl | cut -c1-64 && stat -c %a "
                      "wheels/mooncake-0.3.12.post1.whl && ls -a wheels");
    for (std::size_t i = 0; i < checks.size(); ++i) {
        ASSERT_TRUE(checks[i].ok()) << cluster.hosts[i].name << ": " << exec::failure_reason(checks[i]);
        EXPECT_EQ(checks[i].out, big_sha + "\n640\n.\n..\nmooncake-0.3.12.post1.whl\n")
            << cluster.hosts[i].name;
    }
    std::cout << "[ measured ] push --relay of 64 MiB through 8 hosts: " << relayed.ms << " ms\n";
}

// A host whose relay port is taken cannot join the chain: n3 forwards to n5 instead, n4 gets the file
// directly and says why; nothing fails.
TEST_F(SshPushTest, AHostThatCannotRelayIsPassedOverAndSentTheFileDirectly) {
    make_file("mooncake-0.3.12.post1.whl", kWheelBytes);
    const auto config = write_profile(std::string("  - {source: mooncake-0.3.12.post1.whl, dest: ") +
                                      kRemoteDir + "/wheels/mooncake-0.3.12.post1.whl}\n");
    const auto held = executor->run(
        cluster.node(4),
        exec::Command{
            {"sh", "-c",
             "setsid python3 -c 'import socket, time\ns = socket.socket()\ns.bind((\"0.0.0.0\", 29612))\n"
             "s.listen(1)\ntime.sleep(300)' > /dev/null 2>&1 < /dev/null & echo $! > /root/relay-holder.pid; "
             "for i in $(seq 100); do ss -Hltn 'sport = :29612' | grep -q . && exit 0; sleep 0.05; done; "
             "exit 1"},
            {},
            std::chrono::seconds(30)});
    ASSERT_TRUE(held.ok()) << exec::failure_reason(held);
    const auto relayed =
        pdctl(config, {"--json", "push", "--relay", "--relay-port", "29612"}, "home", kPushBound);
    executor->run(
        cluster.node(4),
        exec::Command{{"sh", "-c", "kill $(cat /root/relay-holder.pid); rm -f /root/relay-holder.pid"},
                      {},
                      std::chrono::seconds(30)});
    ASSERT_EQ(relayed.exit_code, 0) << relayed.dump();
    std::map<std::string, std::string> relay_errors;
    std::map<std::string, std::string> forwarded_by;
    for (const auto& file : relayed.events("push_file")) {
        EXPECT_EQ(file["status"], "sent") << file.dump();
        relay_errors[file["node"]] = file.value("relay_error", "");
        forwarded_by[file["node"]] = file.value("relayed_from", "");
    }
    EXPECT_EQ(forwarded_by["n5"], "n3") << "n3 forwards past n4";
    EXPECT_EQ(forwarded_by["n4"], "") << "sent directly";
    ASSERT_EQ(relay_errors.size(), 8u) << relayed.dump();
    for (const auto* node : {"n1", "n2", "n3", "n5", "n6", "n7", "n8"})
        EXPECT_EQ(relay_errors[node], "") << node;
    EXPECT_NE(relay_errors["n4"].find("cannot listen"), std::string::npos) << relay_errors["n4"];
}

TEST_F(SshPushTest, ADirectoryInTheWayAndARefusingHostAreReportedPerNode) {
    const auto script = temp / "patch.py";
    spit(script, "print(1)\n");
    const auto config =
        write_profile(std::string("  - {source: patch.py, dest: ") + kRemoteDir + "/patch.py}\n");
    ASSERT_TRUE(
        executor
            ->run(cluster.node(2),
                  exec::Command{
                      {"mkdir", "-p", std::string(kRemoteDir) + "/patch.py"}, {}, std::chrono::seconds(10)})
            .ok());
    const auto with_directory = pdctl(config, {"push"});
    EXPECT_EQ(with_directory.exit_code, 4) << with_directory.dump();
    EXPECT_NE(with_directory.out.find("n2: " + std::string(kRemoteDir) + "/patch.py: " + kRemoteDir +
                                      "/patch.py exists and is not a regular file"),
              std::string::npos)
        << with_directory.dump();
    EXPECT_NE(with_directory.out.find("FAIL  7/8 nodes hold every file"), std::string::npos)
        << with_directory.dump();

    // Host 4 refuses SSH: exit 3 (unreachable) naming it, every other host still gets the file.
    in_host_netns(4, {"nft", "add table inet pdctl_push"});
    Restore unblock([&] { in_host_netns(4, {"nft", "delete table inet pdctl_push"}); });
    in_host_netns(4, {"nft", "add chain inet pdctl_push input { type filter hook input priority 0 ; }"});
    in_host_netns(4, {"nft", "add rule inet pdctl_push input tcp dport 22 reject with tcp reset"});
    const auto refused = pdctl(config, {"--json", "push"});
    EXPECT_EQ(refused.exit_code, 3) << refused.dump();
    for (const auto& node : refused.events("push_node")) {
        if (node["node"] == "n4") {
            EXPECT_EQ(node["unreachable"], true);
        } else if (node["node"] != "n2") {
            EXPECT_EQ(node["in_place"], 1) << node.dump();
        }
    }
    bool named = false;
    for (const auto& file : refused.events("push_file"))
        named =
            named || (file["node"] == "n4" && file.value("error", "").find("10.77.0.4") != std::string::npos);
    EXPECT_TRUE(named) << refused.dump();
}

}  // namespace
}  // namespace pdctl::testing
