// The acceptance scenarios on the simulated cluster: the real pdctl binary driving real pdsim
// processes through the process runtime, with HTTP gates against their real servers.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

std::string generate_through_router(const std::string& address, int port) {
    httplib::Client client(address, port);
    client.set_read_timeout(30, 0);
    auto response = client.Post("/generate", R"({"text":"Hello","sampling_params":{"max_new_tokens":16}})",
                                "application/json");
    if (!response || response->status != 200) return {};
    return json::parse(response->body).value("text", "");
}

TEST(LocalCluster, StartStatusGenerateStop) {
    SimCluster cluster("happy", 61);
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;

    const auto status = cluster.run({"--json", "status"});
    EXPECT_EQ(status.exit_code, 0) << status.out;
    const auto doc = json::parse(status.out);
    EXPECT_EQ(doc["state"], "running");
    ASSERT_EQ(doc["roles"].size(), 4u);
    for (const auto& role : doc["roles"]) {
        EXPECT_TRUE(role["healthy"].get<bool>()) << role.dump();
        for (const auto& unit : role["units"]) {
            EXPECT_EQ(unit["state"], "running") << unit.dump();
            EXPECT_EQ(unit["config"], "current") << unit.dump();
        }
    }

    EXPECT_FALSE(generate_through_router(cluster.address(5), 31000).empty());
    const auto smoke = cluster.run({"smoke"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.out << smoke.err;

    // A second start changes nothing.
    const auto again = cluster.run({"start"});
    EXPECT_EQ(again.exit_code, 0);
    EXPECT_NE(again.out.find("nothing changed"), std::string::npos) << again.out;

    const auto stop = cluster.run({"stop"});
    EXPECT_EQ(stop.exit_code, 0) << stop.out << stop.err;
    EXPECT_TRUE(cluster.live_pdsim_processes().empty());
    const auto after = cluster.run({"--json", "status"});
    EXPECT_EQ(after.exit_code, 8);
    EXPECT_EQ(json::parse(after.out)["state"], "stopped");
}

TEST(LocalCluster, CrashWhileLoadingWeightsOnPrefillRank2FailsFastAndCleansUp) {
    SimCluster cluster("crash", 62);
    // Loading weights takes 4 s on every rank, so the gate cannot pass before the crash; rank 2
    // crashes half-way through its phase.
    cluster.append("prefill.env", "PDSIM_WEIGHTS_MS=4000\nPDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=2\n");
    // Watch for the moment rank 2 dies: its supervisor writes the exit file right then (clean-up
    // removes it later, so it is caught while pdctl runs).
    auto run = std::async(std::launch::async, [&] { return cluster.run({"--json", "start"}); });
    const auto exit_file = cluster.state_dir() / "n3" / "pd-crash-prefill-2.exit";
    long long crashed_at_ms = 0;
    while (run.wait_for(std::chrono::milliseconds(5)) != std::future_status::ready) {
        if (crashed_at_ms == 0 && std::filesystem::exists(exit_file))
            crashed_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
    }
    const auto start = run.get();
    EXPECT_EQ(start.exit_code, 4) << start.out << start.err;
    ASSERT_GT(crashed_at_ms, 0) << "never saw rank 2 exit";

    json failed;
    for (const auto& event : start.events())
        if (event["event"] == "stage_failed") failed = event;
    ASSERT_FALSE(failed.is_null()) << start.out;
    EXPECT_EQ(failed["role"], "prefill");
    EXPECT_EQ(failed["node"], "n3");
    EXPECT_EQ(failed["rank"], 2);
    EXPECT_EQ(failed["reason"], "exited (code 1)");
    const auto log = failed["log_tail"].dump();
    EXPECT_NE(log.find("Load weight begin"), std::string::npos) << log;
    EXPECT_NE(log.find("Scheduler hit an exception"), std::string::npos) << log;

    const long long reported_after_ms = failed["epoch_ms"].get<long long>() - crashed_at_ms;
    EXPECT_LE(reported_after_ms, 2000)
        << "the crash was reported " << reported_after_ms << " ms after it happened";
    EXPECT_TRUE(cluster.live_pdsim_processes().empty()) << "pdsim processes left behind";
    const auto status = cluster.run({"--json", "status"});
    EXPECT_EQ(json::parse(status.out)["state"], "stopped") << status.out;
    EXPECT_EQ(start.out.find("\"role\":\"decode\""), std::string::npos) << "decode must not start";
}

}  // namespace
}  // namespace pdctl::testing
