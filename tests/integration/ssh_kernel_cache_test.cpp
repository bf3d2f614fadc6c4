// Kernel caches on the SSH test cluster (ssh_scenario.hpp), every unit a podman container: with
// `cache:`, a start compiles (pdsim's compile phase, PDSIM_COMPILE_MS) into a directory on each host
// that outlives the container; the start after `stop` finds it on every node and skips the compile; an
// image whose ID changed misses, and the cache of the old image is set aside and named, not loaded.
#include <gtest/gtest.h>

#include "pdctl/runtime/kernel_cache.hpp"
#include "ssh_scenario.hpp"

namespace pdctl::testing {
namespace {

constexpr const char* kV2 = "localhost/pdctl/pdsim:cache-v2";

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
    return count;
}

class SshKernelCacheTest : public SshScenarioTest {
  protected:
    void TearDown() override {
        SshScenarioTest::TearDown();  // stops and removes the containers first
        if (executor)
            on_every_host(std::string("rm -rf /root/kcache; podman rmi --ignore ") + kV2 +
                          " >/dev/null 2>&1; true");
    }

    // The sglang units' "started" lines of a start's --json output: unit -> detail.
    static std::map<std::string, std::string> sglang_starts(const ClusterRun& run) {
        std::map<std::string, std::string> found;
        for (const auto& event : run.events("unit_done")) {
            const std::string role = event.value("role", "");
            if (event.value("verb", "") == "start" && (role == "prefill" || role == "decode"))
                found[role + " " + event.value("node", "")] = event.value("detail", "");
        }
        return found;
    }
};

TEST_F(SshKernelCacheTest, TheStartAfterStopHitsOnEveryNodeAndAChangedImageMissesAndSetsTheOldCacheAside) {
    profile = write_profile(temp / "profile", "sshcache", "PDSIM_COMPILE_MS=1500\n");
    auto yaml = slurp(profile);
    replace_all(yaml, "  stop_grace_seconds: 10\n", "  stop_grace_seconds: 10\n  cache: /root/kcache\n");
    spit(profile, yaml);
    auto decode_env = slurp(profile.parent_path() / "decode.env");
    spit(profile.parent_path() / "decode.env", decode_env + "PDSIM_COMPILE_MS=1500\n");

    const auto cold = pdctl(profile, {"--json", "start"});
    ASSERT_EQ(cold.exit_code, 0) << cold.dump();
    auto starts = sglang_starts(cold);
    ASSERT_EQ(starts.size(), 8u) << cold.out;
    for (const auto& [unit, detail] : starts)
        EXPECT_EQ(detail.rfind("cache miss ", 0), 0u) << unit << ": " << detail;
    ASSERT_EQ(pdctl(profile, {"stop"}).exit_code, 0);

    const auto warm = pdctl(profile, {"--json", "start"});
    ASSERT_EQ(warm.exit_code, 0) << warm.dump();
    starts = sglang_starts(warm);
    ASSERT_EQ(starts.size(), 8u) << warm.out;
    for (const auto& [unit, detail] : starts)
        EXPECT_EQ(detail.rfind("cache hit ", 0), 0u) << unit << ": " << detail;
    // The compile was skipped: pdsim says so in every rank's log.
    const auto logs = pdctl(profile, {"logs", "--role", "decode", "--tail", "200"});
    EXPECT_NE(logs.out.find("pdsim: kernel cache hit"), std::string::npos) << logs.dump();
    EXPECT_EQ(logs.out.find("pdsim: kernel cache miss"), std::string::npos) << logs.dump();

    // Shown by the timeline of the last start and by `cache status`.
    const auto timeline = pdctl(profile, {"timeline"});
    EXPECT_EQ(timeline.exit_code, 0) << timeline.dump();
    EXPECT_NE(timeline.out.find("prefill"), std::string::npos);
    EXPECT_EQ(count_of(timeline.out, "  kernel cache: hit\n"), 2u) << timeline.out;
    const auto status = pdctl(profile, {"--json", "cache", "status"});
    ASSERT_EQ(status.exit_code, 0) << status.dump();
    const auto caches = nlohmann::json::parse(status.out)["caches"];
    ASSERT_EQ(caches.size(), 8u) << status.out;
    for (const auto& cache : caches) {
        EXPECT_EQ(cache["last_start"]["result"], "hit") << cache.dump();
        EXPECT_GT(cache["bytes"].get<long long>(), 0) << cache.dump();
    }
    ASSERT_EQ(pdctl(profile, {"stop"}).exit_code, 0);

    // A new image for decode: committed on n1 with a label of its own (a new image ID), then loaded on
    // every host from /tmp, which the hosts share, so that all of them hold the same ID (CTR003).
    const auto archive = (temp / "cache-v2.tar").string();
    const auto committed = executor->run(
        cluster.node(1),
        exec::Command{{"sh", "-c",
                       "set -e; podman create --name pdctl-cache-v2 \"$1\" >/dev/null; "
                       "podman commit --quiet --change LABEL=pdctl.test=cache-v2 pdctl-cache-v2 "
                       "\"$2\" >/dev/null; podman rm pdctl-cache-v2 >/dev/null; "
                       "podman save --quiet -o \"$3\" \"$2\"",
                       "commit", image, kV2, archive},
                      {},
                      std::chrono::minutes(2)});
    ASSERT_TRUE(committed.ok()) << committed.err << exec::failure_reason(committed);
    for (const auto& loaded : on_every_host("podman load --quiet -i " + archive + " >/dev/null"))
        ASSERT_TRUE(loaded.ok()) << loaded.err;
    replace_all(yaml, "    mode: decode\n",
                std::string("    mode: decode\n    container: {image: ") + kV2 + "}\n");
    spit(profile, yaml);
    const auto changed = pdctl(profile, {"--json", "start"});
    ASSERT_EQ(changed.exit_code, 0) << changed.dump();
    starts = sglang_starts(changed);
    ASSERT_EQ(starts.size(), 8u) << changed.out;
    for (const auto& [unit, detail] : starts) {
        if (unit.rfind("prefill", 0) == 0) {
            EXPECT_EQ(detail.rfind("cache hit ", 0), 0u) << unit << ": " << detail;
            continue;
        }
        EXPECT_EQ(detail.rfind("cache miss ", 0), 0u) << unit << ": " << detail;
        const auto outcome = runtime::parse_cache_outcome(detail);
        ASSERT_TRUE(outcome) << detail;
        EXPECT_FALSE(outcome->set_aside.empty()) << detail;
        // The old key's cache is named, with what changed: the image reference, first of the parts.
        EXPECT_EQ(outcome->why.rfind("image " + image + " -> " + kV2, 0), 0u) << detail;
    }
    const auto after =
        nlohmann::json::parse(pdctl(profile, {"--json", "cache", "status", "--role", "decode"}).out);
    ASSERT_EQ(after["caches"].size(), 4u) << after.dump();
    for (const auto& cache : after["caches"]) {
        EXPECT_EQ(cache["last_start"]["result"], "miss") << cache.dump();
        ASSERT_EQ(cache["set_aside"].size(), 1u) << cache.dump();
    }
    std::printf(
        "[ timing ] start with kernel caches: cold %lld ms, warm %lld ms, decode image changed %lld ms\n",
        cold.ms, warm.ms, changed.ms);
}

// One warms, all benefit: three decode hosts lose their caches (replaced disks, new nodes); `cache spread`
// streams n5's to them, each checks it and unpacks it, and the next start hits everywhere.
TEST_F(SshKernelCacheTest, ACacheSpreadFromTheNodeThatHasItMakesTheNextStartHitOnThePeersThatLackedIt) {
    profile = write_profile(temp / "profile", "sshspread", "PDSIM_COMPILE_MS=1500\n");
    auto yaml = slurp(profile);
    replace_all(yaml, "  stop_grace_seconds: 10\n", "  stop_grace_seconds: 10\n  cache: /root/kcache\n");
    spit(profile, yaml);
    spit(profile.parent_path() / "decode.env",
         slurp(profile.parent_path() / "decode.env") + "PDSIM_COMPILE_MS=1500\n");
    ASSERT_EQ(pdctl(profile, {"start"}).exit_code, 0);
    ASSERT_EQ(pdctl(profile, {"stop"}).exit_code, 0);
    for (int host = 6; host <= 8; ++host)
        ASSERT_TRUE(executor
                        ->run(cluster.node(host),
                              exec::Command{{"rm", "-rf", "/root/kcache"}, {}, std::chrono::seconds(30)})
                        .ok());

    const auto spread = pdctl(profile, {"--json", "cache", "spread"});
    ASSERT_EQ(spread.exit_code, 0) << spread.dump();
    const auto doc = nlohmann::json::parse(spread.out);
    ASSERT_EQ(doc["spreads"].size(), 1u) << spread.out;  // prefill's nodes all hold theirs
    EXPECT_EQ(doc["spreads"][0]["role"], "decode");
    EXPECT_EQ(doc["spreads"][0]["from"], "n5");
    EXPECT_EQ(doc["spreads"][0]["to"], nlohmann::json({"n6", "n7", "n8"})) << spread.out;
    EXPECT_TRUE(doc["spreads"][0]["failed"].empty()) << spread.out;

    const auto status =
        nlohmann::json::parse(pdctl(profile, {"--json", "cache", "status", "--role", "decode"}).out);
    for (const auto& cache : status["caches"])
        EXPECT_EQ(cache["key"], doc["spreads"][0]["key"]) << cache.dump();
    const auto warm = pdctl(profile, {"--json", "start"});
    ASSERT_EQ(warm.exit_code, 0) << warm.dump();
    int hits = 0;
    for (const auto& event : warm.events("unit_done"))
        if (event.value("detail", "").rfind("cache hit ", 0) == 0) ++hits;
    EXPECT_EQ(hits, 8) << warm.out;
    ASSERT_EQ(pdctl(profile, {"stop"}).exit_code, 0);

    // A start spreads by itself, before it launches anything: n7 loses its cache again.
    ASSERT_TRUE(
        executor
            ->run(cluster.node(7), exec::Command{{"rm", "-rf", "/root/kcache"}, {}, std::chrono::seconds(30)})
            .ok());
    const auto again = pdctl(profile, {"start"});
    ASSERT_EQ(again.exit_code, 0) << again.dump();
    EXPECT_NE(again.out.find("kernel cache of decode (" + doc["spreads"][0]["key"].get<std::string>() +
                             ") spread from n5 to n7"),
              std::string::npos)
        << again.out;
    EXPECT_EQ(count_of(again.out, ": cache hit "), 8u) << again.out;
    std::printf("[ timing ] cache spread from n5 to n6-n8: %lld ms\n", spread.ms);
}

}  // namespace
}  // namespace pdctl::testing
