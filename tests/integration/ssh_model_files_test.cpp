// FILE002 on the SSH test cluster (ssh_scenario.hpp): every host holds its own copy of the model
// directory under its own /root (prefill on n1-n4 and decode on n5-n8 load the same one); one shard
// removed on n3 ends `start` in its preflight, within seconds, naming n3 and the file, before any
// container starts.
#include <gtest/gtest.h>

#include "ssh_scenario.hpp"

namespace pdctl::testing {
namespace {

class SshModelFilesTest : public SshScenarioTest {
  protected:
    void TearDown() override {
        if (executor) on_every_host("rm -rf /root/models");
        SshScenarioTest::TearDown();
    }
};

TEST_F(SshModelFilesTest, AShardMissingOnOneNodeEndsTheStartInSecondsNamingTheNodeAndTheFile) {
    profile = write_profile(temp / "profile", "sshmodel");
    auto env = slurp(profile.parent_path() / "config.env");
    replace_all(env, "MODEL_ROOT=/data/models", "MODEL_ROOT=/root/models");
    spit(profile.parent_path() / "config.env", env);
    // Two 1 MiB shards and a config on every host, as a model copied to each node's disk.
    for (const auto& made : on_every_host(
             "set -e; mkdir -p /root/models/Kimi-K3; cd /root/models/Kimi-K3; echo '{}' > config.json; "
             "head -c 1048576 /dev/zero > model-00001-of-00002.safetensors; "
             "head -c 1048576 /dev/zero > model-00002-of-00002.safetensors"))
        ASSERT_TRUE(made.ok()) << made.err;
    const auto removed = executor->run(
        cluster.node(3),
        exec::Command{
            {"rm", "/root/models/Kimi-K3/model-00002-of-00002.safetensors"}, {}, std::chrono::seconds(10)});
    ASSERT_TRUE(removed.ok()) << removed.err;

    const auto start = pdctl(profile, {"start"});
    EXPECT_EQ(start.exit_code, 10) << start.dump();
    EXPECT_NE(
        start.out.find("n3: 1 model file missing from /root/models/Kimi-K3: model-00002-of-00002.safetensors "
                       "(1.0 MiB; n1, n2, n4, n5, n6, n7, n8 have it)"),
        std::string::npos)
        << start.dump();
    EXPECT_LT(start.ms, 10000) << start.dump();
    for (const auto& [host, names] : containers())
        EXPECT_TRUE(names.empty()) << host << " has a container after a refused start: " << names.front();
    std::printf("[ timing ] start refused for a shard missing on n3: %lld ms\n", start.ms);
}

}  // namespace
}  // namespace pdctl::testing
