// Lifecycle properties on the simulated cluster: order of stages, drift, secrets, Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <future>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// Index of the first event matching `event` (and `role`, and for unit events the verb), or -1.
int first_event(const std::vector<json>& events, const std::string& event, const std::string& role) {
    for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i]["event"] == event && events[i].value("role", "") == role) return static_cast<int>(i);
    return -1;
}

TEST(Lifecycle, EachStageStartsOnlyAfterThePreviousGatePassed) {
    SimCluster cluster("order", 63);
    const auto start = cluster.run({"--json", "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto events = start.events();
    const int prefill_ready = first_event(events, "stage_ready", "prefill");
    const int decode_begin = first_event(events, "stage_begin", "decode");
    const int decode_ready = first_event(events, "stage_ready", "decode");
    const int router_begin = first_event(events, "stage_begin", "router");
    ASSERT_GE(prefill_ready, 0);
    EXPECT_GT(decode_begin, prefill_ready);
    EXPECT_GT(decode_ready, decode_begin);
    EXPECT_GT(router_begin, decode_ready);
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events[i]["event"] != "unit_done" || events[i]["verb"] != "start") continue;
        if (events[i]["role"] == "decode") {
            EXPECT_GT(static_cast<int>(i), prefill_ready);
        }
        if (events[i]["role"] == "router") {
            EXPECT_GT(static_cast<int>(i), decode_ready);
        }
    }
}

TEST(Lifecycle, StatusShowsDriftAndStartReplacesOnlyWhatChanged) {
    SimCluster cluster("drift", 64);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    cluster.append("decode.env", "SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600\n");
    const auto status = json::parse(cluster.run({"--json", "status"}).out);
    for (const auto& role : status["roles"]) {
        const std::string expected = role["role"] == "decode" ? "drift" : "current";
        for (const auto& unit : role["units"]) EXPECT_EQ(unit["config"], expected) << role["role"];
    }
    const auto restart = cluster.run({"--json", "start"});
    ASSERT_EQ(restart.exit_code, 0) << restart.out;
    const auto events = restart.events();
    EXPECT_GE(first_event(events, "stage_skipped", "prefill"), 0);
    EXPECT_GE(first_event(events, "stage_begin", "decode"), 0);
    EXPECT_GE(first_event(events, "stage_begin", "router"), 0) << "router depends on decode: restarted too";
    EXPECT_EQ(json::parse(cluster.run({"--json", "status"}).out)["state"], "running");
}

TEST(Lifecycle, SecretsNeverAppearInAnyOutput) {
    SimCluster cluster("secret", 65);
    const std::string token = "hf_TopSecretValue_4242";
    cluster.append("prefill.env", "HF_TOKEN=" + token + "\n");
    std::string all;
    for (const auto& args : std::vector<std::vector<std::string>>{{"plan", "start"},
                                                                  {"--json", "plan", "restart"},
                                                                  {"start"},
                                                                  {"--json", "status"},
                                                                  {"logs", "prefill"}}) {
        const auto run = cluster.run(args);
        all += run.out + run.err;
    }
    EXPECT_EQ(all.find(token), std::string::npos);
    EXPECT_NE(all.find("HF_TOKEN=[REDACTED]"), std::string::npos);
    // On the node the value lives only in the unit's env file, readable by its owner alone.
    struct stat info {};
    ASSERT_EQ(::stat((cluster.state_dir() / "n1" / "pd-secret-prefill-0.env").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_NE(read_text(cluster.state_dir() / "n1" / "pd-secret-prefill-0.env").find(token),
              std::string::npos);
}

// The pid of the pdctl process driving `config`, found in /proc (the harness runs it under sh).
int pdctl_pid(const std::string& config) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = read_text(entry.path() / "cmdline");
        if (cmdline.rfind(pdctl::testing::pdctl_binary(), 0) == 0 &&
            cmdline.find(config) != std::string::npos)
            return std::stoi(name);
    }
    return 0;
}

TEST(Lifecycle, InterruptDuringPrefillStopsWhatThisRunStarted) {
    SimCluster cluster("sigint", 66);
    cluster.append("prefill.env", "PDSIM_WEIGHTS_MS=60000\n");  // prefill stays in "loading weights"
    auto run = std::async(std::launch::async, [&] { return cluster.run({"--json", "start"}); });
    // Wait (bounded) until every prefill rank is running, then Ctrl-C pdctl.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int pid = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        if (std::filesystem::exists(cluster.state_dir() / "n4" / "pd-sigint-prefill-3.pid") &&
            (pid = pdctl_pid(cluster.config().string())) != 0)
            break;
        run.wait_for(std::chrono::milliseconds(20));
    }
    ASSERT_NE(pid, 0) << "prefill never started";
    ::kill(pid, SIGINT);
    const auto result = run.get();
    EXPECT_EQ(result.exit_code, 130) << result.out << result.err;
    EXPECT_GE(first_event(result.events(), "stage_failed", "prefill"), 0);
    EXPECT_TRUE(cluster.live_pdsim_processes().empty());
    EXPECT_EQ(json::parse(cluster.run({"--json", "status"}).out)["state"], "stopped");
}

}  // namespace
}  // namespace pdctl::testing
