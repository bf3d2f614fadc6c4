// `start --prewarm` on the SSH test cluster (ssh_scenario.hpp), every unit a podman container: the
// decode nodes n5-n8 each hold a 2 GiB model file on their own /root, mounted into the containers, and
// pdsim's weight phase reads it. With its page cache dropped, `start --prewarm` reads it on all four
// nodes at once before their ranks launch, and afterwards it is resident by each node's own fincore.
// The file is allocated, not written (fallocate): its pages are read into the page cache as any file's
// are, without 8 GiB of disk writes beside the rest of the suite. What a warm read saves against a cold
// one is measured by bench/run's warm scenario (docs/benchmarks.md).
#include <gtest/gtest.h>

#include <regex>

#include "ssh_scenario.hpp"

namespace pdctl::testing {
namespace {

constexpr const char* kModelDir = "/root/models/Kimi-K3";
constexpr const char* kShard = "/root/models/Kimi-K3/model-00001-of-00001.safetensors";

class SshPrewarmTest : public SshScenarioTest {
  protected:
    void TearDown() override {
        SshScenarioTest::TearDown();
        if (executor) on_every_host("rm -rf /root/models");
    }

    std::vector<exec::CommandResult> on_decode_hosts(const std::string& script) const {
        std::vector<exec::CommandResult> answers;
        for (int host = 5; host <= 8; ++host)
            answers.push_back(executor->run(
                cluster.node(host), exec::Command{{"sh", "-c", script}, {}, std::chrono::minutes(3)}));
        return answers;
    }

    // The decode ranks' weight reads, from their logs: milliseconds per rank.
    std::vector<long long> weight_reads() const {
        const auto logs = pdctl(profile, {"logs", "--role", "decode", "--tail", "400"});
        std::vector<long long> ms;
        const std::regex read_line("pdsim: read 1 weight files, 2147483648 bytes, in ([0-9]+) ms");
        for (std::sregex_iterator it(logs.out.begin(), logs.out.end(), read_line), end; it != end; ++it)
            ms.push_back(std::stoll((*it)[1].str()));
        return ms;
    }
};

TEST_F(SshPrewarmTest, AfterThePrewarmTheModelIsResidentOnEveryNode) {
    profile = write_profile(temp / "profile", "sshwarm");
    auto yaml = slurp(profile);
    // Decode loads a model from the node's own disk, mounted into its containers; prefill a hub name
    // (nothing on disk to read).
    replace_all(
        yaml, "    mode: decode\n",
        "    mode: decode\n    container: {options: [--network, host, --pull, never, --cap-add, SYS_PTRACE, "
        "-v, '/root/models:/root/models:ro']}\n");
    spit(profile, yaml);
    auto decode_env = slurp(profile.parent_path() / "decode.env");
    replace_all(decode_env, "MODEL_PATH=${MODEL_ROOT}/Kimi-K3", std::string("MODEL_PATH=") + kModelDir);
    spit(profile.parent_path() / "decode.env", decode_env);
    auto prefill_env = slurp(profile.parent_path() / "prefill.env");
    replace_all(prefill_env, "MODEL_PATH=${MODEL_ROOT}/Kimi-K3", "MODEL_PATH=moonshotai/Kimi-K3");
    spit(profile.parent_path() / "prefill.env", prefill_env);
    // Allocated on each node's disk and not in its page cache: nothing of it read yet.
    const std::string drop = std::string("dd if=") + kShard + " iflag=nocache count=0 2>/dev/null";
    for (const auto& made : on_decode_hosts(std::string("set -e; mkdir -p ") + kModelDir +
                                            "; fallocate -l 2147483648 " + kShard + "; " + drop))
        ASSERT_TRUE(made.ok()) << made.err;
    const std::string resident_bytes =
        std::string("fincore --bytes --noheadings --raw --output RES ") + kShard;
    for (const auto& resident : on_decode_hosts(resident_bytes)) {
        ASSERT_TRUE(resident.ok()) << resident.err;
        EXPECT_LT(std::stoll(resident.out), 2147483648LL / 20) << "not dropped: " << resident.out;
    }

    const auto warm = pdctl(profile, {"start", "--prewarm"});
    ASSERT_EQ(warm.exit_code, 0) << warm.dump();
    const std::regex note(
        "prewarm (n[5-8]): /root/models/Kimi-K3 2.0 GiB in 1 files read in [0-9.]+s, [0-9.]+ GiB "
        "resident \\(([0-9]+) %\\)");
    int nodes = 0;
    for (std::sregex_iterator it(warm.out.begin(), warm.out.end(), note), end; it != end; ++it) {
        ++nodes;
        EXPECT_GE(std::stoi((*it)[2].str()), 95) << (*it)[0].str();
    }
    EXPECT_EQ(nodes, 4) << warm.out;
    // Each node's own account, after its rank loaded: still in memory.
    for (const auto& resident : on_decode_hosts(resident_bytes)) {
        ASSERT_TRUE(resident.ok()) << resident.err;
        EXPECT_GE(std::stoll(resident.out), 2147483648LL * 95 / 100) << resident.out;
    }
    const auto reads = weight_reads();
    ASSERT_EQ(reads.size(), 4U);
    std::printf(
        "[ timing ] start --prewarm %lld ms; the decode ranks' 2 GiB reads after it: %lld %lld %lld %lld "
        "ms\n",
        warm.ms, reads[0], reads[1], reads[2], reads[3]);
}

}  // namespace
}  // namespace pdctl::testing
