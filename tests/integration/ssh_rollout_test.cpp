// `pdctl rollout` over SSH with podman on the 8 hosts of the SSH test cluster (ssh_scenario.hpp), 1P+2D
// behind SMG, a stream of /generate requests through the router during each rollout. The images come
// from the test registry (test_registry.hpp) as two tags, v1 and v2, so that the rollout's pull of a
// new tag is real: a good change (the decode image v1 -> v2 and one flag) rolls through with no failed
// request and leaves nothing to diff; a change that makes decode 30 % slower is stopped at its canary
// and rolled back. Only the cluster's own addresses (10.77.0.0/24) are contacted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "generate_stream.hpp"
#include "ssh_scenario.hpp"
#include "test_registry.hpp"

namespace pdctl::testing {
namespace {

class SshRolloutTest : public SshScenarioTest {
  protected:
    void SetUp() override {
        SshScenarioTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        const auto env = read_cluster_env(ssh_cluster_env_path());
        registry = env.count("PDT_REGISTRY") ? env.at("PDT_REGISTRY") : "";
        const char* ci = std::getenv("CI");
        if (registry.empty() || ::access("/usr/bin/docker-registry", X_OK) != 0) {
            if (ci && *ci)
                FAIL() << "CI must have Debian's docker-registry and PDT_REGISTRY (.ci/install-deps)";
            GTEST_SKIP() << "no docker-registry or no PDT_REGISTRY: apt-get install docker-registry";
        }
        ASSERT_EQ(registry_server.start(temp, registry), "");
        for (const auto* tag : {"v1", "v2"}) {
            const auto pushed = executor->run(
                cluster.node(1), exec::Command{{"podman", "push", "--quiet", "--tls-verify=false", image,
                                                registry + "/pdctl/pdsim:" + tag},
                                               {},
                                               std::chrono::minutes(2)});
            ASSERT_TRUE(pushed.ok()) << "podman push: " << pushed.err << exec::failure_reason(pushed);
        }
    }

    void TearDown() override {
        SshScenarioTest::TearDown();  // stops and removes the containers first
        if (executor && !registry.empty())
            on_every_host("podman rmi --ignore " + registry + "/pdctl/pdsim:v1 " + registry +
                          "/pdctl/pdsim:v2 >/dev/null 2>&1; true");
        registry_server.stop();
    }

    // The decode groups' env: metrics on (the canary's own latency), tokens that take 8 ms, and `extra`.
    void write_decode_env(const std::string& extra_args, const std::string& extra_env = {}) {
        auto text = decode_env_;
        replace_all(text, "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85\"",
                    "EXTRA_ARGS=\"--trust-remote-code --mem-fraction-static 0.85 --enable-metrics" +
                        extra_args + "\"\nPDSIM_TOKEN_MS=8\n" + extra_env);
        spit(profile.parent_path() / "decode.env", text);
    }

    ClusterRun rollout(const std::vector<std::string>& head = {}) {
        std::vector<std::string> args = head;
        // The prefill runs without --enable-metrics, as the runbook's does: its KV counters are unread.
        args.insert(args.end(),
                    {"rollout", "--canary-window", "4s", "--drain-grace", "1s", "--allow-unverified"});
        return pdctl(profile, args, "home", std::chrono::minutes(5));
    }

    std::string registry;
    TestRegistry registry_server;
    std::string decode_env_;
};

TEST_F(SshRolloutTest, ANewImageTagAndAFlagRollThroughAndASlowerDecodeIsRolledBack) {
    profile = write_profile(temp / "profile", "sshrollout");
    auto text = slurp(profile);
    two_groups_each(text, "smg", false);
    replace_all(text, "image: " + image, "image: " + registry + "/pdctl/pdsim:v1");
    const auto v1_yaml = text;
    spit(profile, text);
    decode_env_ = slurp(profile.parent_path() / "decode.env");
    write_decode_env("");
    ASSERT_EQ(pdctl(profile, {"pull"}).exit_code, 0);
    const auto start = pdctl(profile, {"start"});
    ASSERT_EQ(start.exit_code, 0) << start.dump();

    // The good change: the decode groups' image v1 -> v2 and one flag.
    auto v2_yaml = v1_yaml;
    replace_all(v2_yaml, "    mode: decode\n",
                "    mode: decode\n    container: {image: " + registry + "/pdctl/pdsim:v2}\n");
    spit(profile, v2_yaml);
    write_decode_env(" --max-running-requests 64");
    const auto plan = pdctl(profile, {"rollout", "--dry-run"});
    ASSERT_EQ(plan.exit_code, 0) << plan.dump();
    EXPECT_NE(plan.out.find("1. replace decode (canary): image " + registry + "/pdctl/pdsim:v1 -> " +
                            registry + "/pdctl/pdsim:v2; add --max-running-requests 64"),
              std::string::npos)
        << plan.out;
    {
        GenerateStream stream(host(5).address, 31000);
        const auto good = rollout();
        stream.stop();
        EXPECT_EQ(good.exit_code, 0) << good.dump();
        EXPECT_NE(good.out.find("pulling the new images on 4 nodes before anything is touched"),
                  std::string::npos)
            << good.out;
        EXPECT_NE(good.out.find("canary decode: passed"), std::string::npos) << good.out;
        EXPECT_GT(stream.sent(), 20);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures()) << good.out;
        std::printf(
            "[ timing ] ssh rollout of 2 decode groups (new tag and flag): %lld ms, %d requests, %zu "
            "failed\n",
            good.ms, stream.sent(), stream.failures().size());
    }
    const auto clean = pdctl(profile, {"diff"});
    EXPECT_EQ(clean.exit_code, 0) << clean.dump();
    // The decode containers run v2, by podman's own account.
    const auto running = on_every_host("podman ps --format '{{.Names}} {{.Image}}'");
    EXPECT_NE(running[6].out.find("decode-2-0 " + registry + "/pdctl/pdsim:v2"), std::string::npos)
        << running[6].out;

    // Decode 30 % slower: its own ITL against decode-2's shows it; rolled back, no request lost.
    write_decode_env(" --max-running-requests 64", "PDSIM_SLOWDOWN=0.3\n");
    {
        GenerateStream stream(host(5).address, 31000);
        const auto slow = rollout({"--json"});
        stream.stop();
        EXPECT_EQ(slow.exit_code, 18) << slow.dump();
        const auto results = slow.events("rollout_result");
        ASSERT_EQ(results.size(), 1u) << slow.dump();
        ASSERT_TRUE(results[0].contains("canary")) << slow.dump();
        EXPECT_TRUE(results[0]["rolled_back"]) << results[0].dump(2);
        EXPECT_EQ(results[0]["canary"]["latency"]["metric"], "ITL mean") << results[0].dump(2);
        EXPECT_TRUE(results[0]["canary"]["latency"]["regressed"]) << results[0].dump(2);
        EXPECT_TRUE(stream.failures().empty()) << stream.failures().size() << " of " << stream.sent()
                                               << " failed:" << first_failures(stream.failures());
        std::printf(
            "[ timing ] ssh rollout stopped at its canary and rolled back: %lld ms, ITL %.2f vs %.2f ms, "
            "%d requests, %zu failed\n",
            slow.ms, results[0]["canary"]["latency"].value("canary_ms", 0.0),
            results[0]["canary"]["latency"].value("others_ms", 0.0), stream.sent(), stream.failures().size());
    }
    const auto pending = pdctl(profile, {"diff"});
    EXPECT_EQ(pending.exit_code, 1) << pending.dump();
    EXPECT_NE(pending.out.find("env + PDSIM_SLOWDOWN=0.3"), std::string::npos) << pending.out;
}

}  // namespace
}  // namespace pdctl::testing
