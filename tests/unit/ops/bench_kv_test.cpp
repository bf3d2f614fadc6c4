// The KV counters of a bench: what each rose by across reads, a server whose counters began again, the
// histograms' mean over the load, and a group that could not be read failing the soak unless allowed.
#include "pdctl/ops/bench_kv.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <thread>

namespace pdctl::ops {
namespace {

// Each GET of /metrics answers the next of its scripted bodies (the last one again when they run out);
// an empty body is a 404, as from a server without --enable-metrics.
class CountersProber : public health::HttpProber {
  public:
    std::deque<std::string> bodies;
    health::ProbeResult get(const std::string& /*url*/, std::chrono::milliseconds /*timeout*/) override {
        std::lock_guard lock(mutex_);
        const std::string body = bodies.front();
        if (bodies.size() > 1) bodies.pop_front();
        if (body.empty()) return {404, "Not Found", ""};
        return {200, body, ""};
    }
    std::size_t remaining() {
        std::lock_guard lock(mutex_);
        return bodies.size();
    }
    health::ProbeResult post(const std::string&, const std::string&, const std::string&,
                             const health::PostTimeouts&) override {
        return {0, "", "not scripted"};
    }

  private:
    std::mutex mutex_;
};

std::string metrics(int transfer_failed, double latency_sum = 0, int latency_count = 0) {
    return "sglang:num_transfer_failed_reqs_total{tp_rank=\"0\"} " + std::to_string(transfer_failed) +
           "\nsglang:num_bootstrap_failed_reqs_total{tp_rank=\"0\"} 0\n"
           "sglang:kv_transfer_latency_ms_sum " +
           std::to_string(latency_sum) + "\nsglang:kv_transfer_latency_ms_count " +
           std::to_string(latency_count) + "\n";
}

KvCounters decode() {
    KvCounters group;
    group.role = "decode";
    group.node = "n5";
    group.url = "http://127.0.0.5:30000/metrics";
    return group;
}

TEST(BenchKv, ACounterThatBeganAgainCountsItsWholeNewValueAsARise) {
    CountersProber prober;
    // 5 before; 7 (+2); 2: the server restarted (+2); 3 at the end (+1).
    prober.bodies = {metrics(5), metrics(7), metrics(2), metrics(3)};
    std::vector<KvCounters> groups = {decode()};
    read_kv_counters(prober, groups, KvRead::kFirst);
    read_kv_counters(prober, groups, KvRead::kDuring);
    read_kv_counters(prober, groups, KvRead::kDuring);
    read_kv_counters(prober, groups, KvRead::kLast);
    EXPECT_DOUBLE_EQ(groups[0].transfer_failed_rise, 5);
    EXPECT_EQ(groups[0].resets, 1);
    std::vector<std::string> problems, notes;
    judge_kv(groups, false, problems, notes);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("decode (n5): sglang:num_transfer_failed_reqs_total rose by 5"),
              std::string::npos)
        << problems[0];
    EXPECT_NE(problems[0].find("began again 1 time(s): the server restarted"), std::string::npos)
        << problems[0];
}

TEST(BenchKv, TheLatencyIsTheHistogramsMeanOverTheLoad) {
    CountersProber prober;
    // 10 transfers (1000 ms in all) before the load, 4 more taking 100 ms in all during it: 25 ms each.
    prober.bodies = {metrics(0, 1000, 10), metrics(0, 1100, 14)};
    std::vector<KvCounters> groups = {decode()};
    read_kv_counters(prober, groups, KvRead::kFirst);
    read_kv_counters(prober, groups, KvRead::kLast);
    ASSERT_TRUE(groups[0].transfer_latency_ms);
    EXPECT_DOUBLE_EQ(*groups[0].transfer_latency_ms, 25);
    std::vector<std::string> problems, notes;
    judge_kv(groups, false, problems, notes);
    EXPECT_TRUE(problems.empty());
}

TEST(BenchKv, AGroupNotReadAtTheStartOrTheEndIsUnverifiedAndFailsUnlessAllowed) {
    for (const auto& script :
         {std::deque<std::string>{"", metrics(0)}, std::deque<std::string>{metrics(0), ""}}) {
        CountersProber prober;
        prober.bodies = script;
        std::vector<KvCounters> groups = {decode()};
        read_kv_counters(prober, groups, KvRead::kFirst);
        read_kv_counters(prober, groups, KvRead::kLast);
        EXPECT_NE(groups[0].unavailable.find("404"), std::string::npos) << groups[0].unavailable;
        std::vector<std::string> problems, notes;
        judge_kv(groups, false, problems, notes);
        ASSERT_EQ(problems.size(), 1u);
        EXPECT_NE(problems[0].find("decode (n5): KV counters unverified"), std::string::npos) << problems[0];
        problems.clear();
        judge_kv(groups, true, problems, notes);
        EXPECT_TRUE(problems.empty());
        ASSERT_EQ(notes.size(), 1u);
        EXPECT_NE(notes[0].find("--allow-unverified"), std::string::npos) << notes[0];
    }
}

TEST(BenchKv, AReadThatFailsInTheMiddleLosesNothing) {
    CountersProber prober;
    prober.bodies = {metrics(1), "", metrics(4)};
    std::vector<KvCounters> groups = {decode()};
    read_kv_counters(prober, groups, KvRead::kFirst);
    read_kv_counters(prober, groups, KvRead::kDuring);
    read_kv_counters(prober, groups, KvRead::kLast);
    EXPECT_TRUE(groups[0].unavailable.empty()) << groups[0].unavailable;
    EXPECT_DOUBLE_EQ(groups[0].transfer_failed_rise, 3);
}

TEST(BenchKv, TheWatchReadsWhileTheLoadRunsAndStopsAtOnce) {
    CountersProber prober;
    prober.bodies = {metrics(0), metrics(3), metrics(1)};  // a reset only a read in the middle can see
    std::vector<KvCounters> groups = {decode()};
    read_kv_counters(prober, groups, KvRead::kFirst);
    {
        KvWatch watch(prober, groups, std::chrono::milliseconds(1));
        // A bounded wait for the watch's first read: the script is down to its last body then.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (prober.remaining() > 1 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::yield();
        EXPECT_EQ(prober.remaining(), 1u) << "the watch never read";
    }
    read_kv_counters(prober, groups, KvRead::kLast);
    EXPECT_EQ(groups[0].resets, 1);
    EXPECT_DOUBLE_EQ(groups[0].transfer_failed_rise, 3 + 1);
}

}  // namespace
}  // namespace pdctl::ops
