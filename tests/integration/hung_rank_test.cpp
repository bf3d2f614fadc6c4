// A rank that hangs where the others go on (sglang #12121, #6864), on the simulated cluster: prefill
// rank 2 stops while allocating its KV cache. `start` names it stalled long before the gate deadline
// and blames it when the deadline passes; `status` shows it stalled (the others waiting) and exits
// degraded.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr long long kStallAfterMs = 5000;

// When a file was last written, in ms since the epoch.
long long mtime_ms(const std::filesystem::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return -1;
    return static_cast<long long>(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1000000;
}

TEST(HungRank, IsNamedStalledInStartsProgressBlamedAtTheDeadlineAndShownByStatus) {
    SimCluster cluster("hung", 86);
    auto text = read_text(cluster.config());
    replace_all(text, "    mode: prefill\n", "    mode: prefill\n    stall_after: 5s\n");
    replace_all(text, "    profile: prefill.env\n",
                "    profile: prefill.env\n    health: {deadline: 20s, interval: 250ms}\n");
    replace_all(text,
                "    tp_size: 32\n    ep_size: 32\n    health: {deadline: 2m, interval: 250ms}\n\n  decode:",
                "    tp_size: 32\n    ep_size: 32\n\n  decode:");
    write_text(cluster.config(), text);
    cluster.append("prefill.env", "PDSIM_HANG_AT=kv\nPDSIM_HANG_RANK=2\n");

    const auto start = cluster.run({"--json", "start", "--keep-on-failure"});
    ASSERT_EQ(start.exit_code, 5) << start.out << start.err;

    // Rank 2's log was last written when it hung, at the start of its KV cache phase; ranks 0, 1 and 3
    // moved on later still (they finished that phase). So "named within 2 x stall_after of the others
    // moving on" holds if it holds counted from rank 2's last write.
    const auto hung_at = mtime_ms(cluster.state_dir() / "n3" / (cluster.unit("prefill", 2) + ".log"));
    ASSERT_GT(hung_at, 0);
    long long named = -1, named_epoch = -1;
    std::set<int> stalled_ranks;
    json failed;
    for (const auto& event : start.events()) {
        if (event["event"] == "stage_failed") failed = event;
        if (event["event"] != "unit_progress" || event["role"] != "prefill") continue;
        const int rank = event["rank"];
        if (event["verdict_changed"] == true && event["verdict"] == "stalled") {
            stalled_ranks.insert(rank);
            if (rank == 2 && named < 0) {
                named = event["elapsed_ms"];
                named_epoch = event["epoch_ms"];
                EXPECT_EQ(event["node"], "n3");
                EXPECT_NE(event.value("stall", "").find("stalled while allocating KV cache"),
                          std::string::npos)
                    << event.dump();
                EXPECT_NE(event.value("stall", "").find("ranks 0,1,3 moved past it"), std::string::npos)
                    << event.dump();
            }
        }
    }
    ASSERT_GE(named, 0) << "rank 2 was never named stalled:\n" << start.out;
    EXPECT_EQ(stalled_ranks, std::set<int>{2}) << "only rank 2 is stalled; the others wait for it";
    EXPECT_LE(named_epoch - hung_at, 2 * kStallAfterMs) << "named " << named << " ms into the stage";
    EXPECT_LT(named, 20000) << "named before the gate deadline";
    std::printf(
        "[ timing ] hung rank named stalled %lld ms after it hung (stall_after %lld ms, gate deadline "
        "20 s)\n",
        named_epoch - hung_at, kStallAfterMs);

    // The deadline's failure blames the rank the group waits for, with its log.
    ASSERT_TRUE(failed.is_object()) << start.out;
    EXPECT_EQ(failed["node"], "n3") << failed.dump();
    EXPECT_EQ(failed["rank"], 2) << failed.dump();
    EXPECT_NE(failed["reason"].get<std::string>().find("rank 2 on n3 stalled while allocating KV cache"),
              std::string::npos)
        << failed.dump();
    const auto tail = failed["log_tail"].dump();
    EXPECT_NE(tail.find("KV Cache is allocated"), std::string::npos) << tail;

    const auto status = cluster.run({"--json", "status", "--role", "prefill"});
    EXPECT_EQ(status.exit_code, 7) << status.out << status.err;
    const auto doc = json::parse(status.out);
    for (const auto& unit : doc["roles"][0]["units"]) {
        const int rank = unit["rank"];
        EXPECT_EQ(unit["state"], "running") << unit.dump();
        EXPECT_EQ(unit["progress"], rank == 2 ? "stalled" : "waiting") << unit.dump();
        EXPECT_GE(unit["log_quiet_seconds"].get<long long>(), rank == 2 ? 10 : 0) << unit.dump();
        if (rank == 2) {
            EXPECT_EQ(unit["phase"], "kv-cache") << unit.dump();
        }
    }
    const auto table = cluster.run({"status"});
    EXPECT_EQ(table.exit_code, 7) << table.out;
    EXPECT_NE(table.out.find("prefill: rank 2 on n3 stalled while allocating KV cache"), std::string::npos)
        << table.out;
    EXPECT_NE(table.out.find("stalled     -       kv-cache"), std::string::npos) << table.out;
    std::printf("%s", table.out.c_str());

    // py-spy (pdsim's stand-in) on every rank: rank 2 is where the group waits.
    const auto stack = cluster.run({"--json", "stack", "--role", "prefill"});
    EXPECT_EQ(stack.exit_code, 0) << stack.out << stack.err;
    const auto dumps = json::parse(stack.out);
    ASSERT_EQ(dumps["stages"].size(), 1u) << stack.out;
    const auto& odd = dumps["stages"][0]["odd_ones_out"];
    ASSERT_EQ(odd.size(), 1u) << stack.out;
    EXPECT_EQ(odd[0],
              "rank 2 on n3 is in `_create_buffers (sglang/srt/mem_cache/memory_pool.py)` while ranks 0,1,3 "
              "are in `broadcast_pyobj (sglang/srt/utils/common.py)`");
    const auto folded = cluster.run({"stack", "--group", "prefill"});
    EXPECT_NE(folded.out.find("── rank 2 (n3) ──"), std::string::npos) << folded.out;
    EXPECT_NE(folded.out.find("init_memory_pool (sglang/srt/model_executor/model_runner.py:1386)"),
              std::string::npos)
        << folded.out;
}

}  // namespace
}  // namespace pdctl::testing
