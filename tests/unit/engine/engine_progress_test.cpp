// Live progress while a stage waits on its gate: the engine reads each unit's log every
// progress_interval and reports phase changes, on the fake cluster and fake clock (no sleeps).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pdctl/engine/engine.hpp"
#include "pdctl/engine/progress_watch.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

using namespace std::chrono_literals;
using runtime::Phase;

// A prefill rank's log as the fake cluster serves it: each line appears `after` the unit started,
// stamped with the matching wall time (start = 08:00:00).
std::vector<std::pair<Duration, std::string>> scripted(
    const std::vector<std::pair<int, std::string>>& lines_at_seconds) {
    std::vector<std::pair<Duration, std::string>> log;
    for (const auto& [second, text] : lines_at_seconds)
        log.emplace_back(std::chrono::seconds(second),
                         fmt::format("[2026-11-29 08:00:{:02}] {}", second, text));
    return log;
}

class EngineProgressTest : public ::testing::Test {
  protected:
    void SetUp() override {
        interrupt_signal() = 0;
        nodes.behaviour["pd-demo-prefill-0"].ready_after = 20s;
        nodes.behaviour["pd-demo-prefill-0"].log = scripted({
            {0, "server_args=ServerArgs(model_path='/data/models/Kimi-K3', disaggregation_mode='prefill')"},
            {1, "Init torch distributed begin."},
            {4, "Load weight begin. avail mem=78.21 GB"},
            {12, "Load weight end. type=DeepseekV3ForCausalLM, avail mem=20.10 GB, mem usage=58.11 GB."},
            {13, "KV Cache is allocated. #tokens: 1000000, KV size: 12.00 GB"},
            {14, "Capture cuda graph begin. This can take up to several minutes."},
            {16, "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)"},
            {17, "Start of pd disaggregation warmup ..."},
        });
        for (const char* rank : {"pd-demo-prefill-1", "pd-demo-prefill-2", "pd-demo-prefill-3"}) {
            nodes.behaviour[rank].log = scripted({
                {0, "server_args=ServerArgs(model_path='/data/models/Kimi-K3', node_rank=1)"},
                {1, "Init torch distributed begin."},
                {4, "Load weight begin. avail mem=78.21 GB"},
                {12, "Load weight end. type=DeepseekV3ForCausalLM, avail mem=20.10 GB"},
                {16, "Dummy health check server started in background thread at 0.0.0.0:30000"},
            });
        }
        nodes.behaviour["pd-demo-prefill-2"].log.insert(
            nodes.behaviour["pd-demo-prefill-2"].log.begin() + 1,
            {1s,
             "I1129 08:00:01.310770  9411 transfer_engine_impl.cpp:417] Topology discovery complete. "
             "Found 0 HCAs."});
    }
    void TearDown() override { interrupt_signal() = 0; }

    Engine make_engine(EngineOptions options = {}) {
        return Engine(plan, nodes.backend, nodes, clock, reporter, options);
    }

    // The phases a unit was reported entering, in order.
    std::vector<Phase> changes(const std::string& unit) const {
        std::vector<Phase> phases;
        for (const auto& event : reporter.progress)
            if (event.unit == unit && event.progress.phase_changed) phases.push_back(event.progress.phase);
        return phases;
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    FakeClock clock;
    testing::FakeCluster nodes{plan, clock};
    testing::RecordingReporter reporter;
};

TEST_F(EngineProgressTest, ReportsEachUnitsPhaseChangesInOrder) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    EXPECT_EQ(changes("pd-demo-prefill-0"),
              (std::vector<Phase>{Phase::kInitialising, Phase::kLoadingWeights, Phase::kKvCache,
                                  Phase::kCudaGraphs, Phase::kHttpUp, Phase::kWarmup}));
    for (const char* rank : {"pd-demo-prefill-1", "pd-demo-prefill-2", "pd-demo-prefill-3"})
        EXPECT_EQ(changes(rank), (std::vector<Phase>{Phase::kInitialising, Phase::kLoadingWeights,
                                                     Phase::kKvCache, Phase::kJoined}))
            << rank;

    // Weights were loaded from 0:04 to 0:12 of the stage, as the log (and the fake clock) say.
    for (const auto& event : reporter.progress) {
        if (event.unit != "pd-demo-prefill-0" || event.progress.phase != Phase::kKvCache ||
            !event.progress.phase_changed)
            continue;
        ASSERT_TRUE(event.progress.previous);
        EXPECT_EQ(*event.progress.previous, Phase::kLoadingWeights);
        EXPECT_EQ(event.progress.previous_took, 8s);
        EXPECT_EQ(event.progress.stage_elapsed, 12s);
    }
    // All of prefill's progress comes before decode's: the events belong to the stage that waits.
    std::size_t last_prefill = 0, first_decode = reporter.progress.size();
    for (std::size_t i = 0; i < reporter.progress.size(); ++i) {
        if (reporter.progress[i].role == "prefill") last_prefill = i;
        if (reporter.progress[i].role == "decode") first_decode = std::min(first_decode, i);
    }
    EXPECT_LT(last_prefill, first_decode);
}

TEST_F(EngineProgressTest, OneLogsCommandPerUnitPerIntervalAndNoneWhenDisabled) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    // prefill waits 20 s for its gate: polls at 0, 2, ..., 18 s, one tail per unit each time, and one
    // last look when the gate passes at 20 s (the timeline then reaches the gate).
    std::size_t prefill_tails = 0;
    for (const auto& event : nodes.events)
        if (event.rfind("logs ", 0) == 0 && event.find("pd-demo-prefill-") != std::string::npos)
            ++prefill_tails;
    EXPECT_EQ(prefill_tails, 11u * 4u);
    std::size_t final_looks = 0;
    for (const auto& event : reporter.progress)
        if (event.unit.rfind("pd-demo-prefill-", 0) == 0 && event.progress.stage_elapsed == 20s)
            ++final_looks;
    EXPECT_EQ(final_looks, 4u);

    reporter.progress.clear();
    nodes.events.clear();
    ASSERT_EQ(make_engine().stop(), ExitCode::kOk);
    EngineOptions off;
    off.progress_interval = Duration{0};
    ASSERT_EQ(make_engine(off).start(), ExitCode::kOk);
    EXPECT_EQ(nodes.count("logs "), 0u);
    EXPECT_TRUE(reporter.progress.empty());
}

TEST_F(EngineProgressTest, PeriodicRefreshesCarryStalledForAndWarningsComeOnce) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    // prefill-1 logged its last line at 16 s; the poll at 18 s finds nothing new.
    bool saw_stall = false;
    for (const auto& event : reporter.progress) {
        if (event.unit != "pd-demo-prefill-1" || event.progress.stage_elapsed != 18s) continue;
        EXPECT_FALSE(event.progress.phase_changed);
        EXPECT_EQ(event.progress.stalled_for, 2s);
        EXPECT_EQ(event.progress.phase, Phase::kJoined);
        saw_stall = true;
    }
    EXPECT_TRUE(saw_stall);

    std::vector<std::string> warnings;
    for (const auto& event : reporter.progress)
        for (const auto& warning : event.progress.new_warnings)
            warnings.push_back(event.unit + ": " + warning);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0].rfind("pd-demo-prefill-2: Mooncake found 0 HCAs", 0), 0u) << warnings[0];
}

TEST_F(EngineProgressTest, PhaseSeenLateIsDatedByItsLogLine) {
    const auto& stage = *plan.find_stage("prefill");
    ProgressWatch watch(plan, stage, clock.now(), 40);
    const auto first =
        watch.observe(0, {"[2026-11-29 08:00:00] server_args=ServerArgs(model_path='/m')"}, clock.now());
    EXPECT_EQ(first.phase, Phase::kInitialising);
    EXPECT_TRUE(first.phase_changed);
    EXPECT_FALSE(first.previous);

    // Ten seconds later the log shows weights loading since 08:00:03. The first poll read a line
    // stamped 08:00:00 at 0 s, so 08:00:03 is 3 s on our clock: the phase began 7 s ago.
    clock.advance(10s);
    const auto second =
        watch.observe(0,
                      {"[2026-11-29 08:00:00] server_args=ServerArgs(model_path='/m')",
                       "[2026-11-29 08:00:03 TP0] Load weight begin. avail mem=78.21 GB",
                       "[2026-11-29 08:00:08 TP0] Loading safetensors checkpoint shards:  50%"},
                      clock.now());
    EXPECT_EQ(second.phase, Phase::kLoadingWeights);
    EXPECT_EQ(second.phase_elapsed, 7s);
    EXPECT_EQ(*second.previous, Phase::kInitialising);
    EXPECT_EQ(second.previous_took, 3s);
    // Its log moved last at 08:00:08, 8 s on our clock: quiet for 2 s, not since this poll.
    EXPECT_EQ(second.stalled_for, 2s);

    // The tail scrolls past "Load weight begin" and shows only unrecognised lines: still loading.
    clock.advance(2s);
    const auto third = watch.observe(0, {"[2026-11-29 08:00:10 TP0] some NCCL chatter"}, clock.now());
    EXPECT_EQ(third.phase, Phase::kLoadingWeights);
    EXPECT_FALSE(third.phase_changed);
    EXPECT_EQ(third.phase_elapsed, 9s);

    // Nothing new for 40 s: quiet since 08:00:10, 10 s on our clock.
    clock.advance(40s);
    const auto fourth = watch.observe(0, {"[2026-11-29 08:00:10 TP0] some NCCL chatter"}, clock.now());
    EXPECT_EQ(fourth.stalled_for, 42s);

    // A node clock far off this machine's changes nothing: only differences between log lines count.
    ProgressWatch skewed(plan, stage, clock.now(), 40);
    skewed.observe(1, {"[2031-01-01 00:00:00] server_args=ServerArgs(model_path='/m')"}, clock.now());
    clock.advance(4s);
    const auto late = skewed.observe(1, {"[2031-01-01 00:00:01 TP8] Load weight begin."}, clock.now());
    EXPECT_EQ(late.phase_elapsed, 3s);
    EXPECT_EQ(late.previous_took, 1s);
}

TEST_F(EngineProgressTest, APollThatSeesSeveralPhasesDatesEachByItsLine) {
    const auto& stage = *plan.find_stage("prefill");
    ProgressWatch watch(plan, stage, clock.now(), 40);
    watch.observe(0, {"[2026-11-29 08:00:00] server_args=ServerArgs(model_path='/m')"}, clock.now());
    // Weights, KV cache and CUDA graphs all began between two polls 10 s apart: each is recorded with
    // the time of its own line (08:00:02, :05, :07 = 2, 5, 7 s on our clock), not skipped.
    clock.advance(10s);
    const auto seen = watch.observe(0,
                                    {"[2026-11-29 08:00:02 TP0] Load weight begin. avail mem=78.21 GB",
                                     "[2026-11-29 08:00:05 TP0] Load weight end. type=X, avail mem=20 GB",
                                     "[2026-11-29 08:00:07 TP0] Capture cuda graph begin. This can take up"},
                                    clock.now());
    ASSERT_TRUE(seen.phase_changed);
    ASSERT_EQ(seen.entered.size(), 3u);
    EXPECT_EQ(seen.entered[0].phase, Phase::kLoadingWeights);
    EXPECT_EQ(seen.entered[0].ago, 8s);
    EXPECT_EQ(seen.entered[1].phase, Phase::kKvCache);
    EXPECT_EQ(seen.entered[1].ago, 5s);
    EXPECT_EQ(seen.entered[2].phase, Phase::kCudaGraphs);
    EXPECT_EQ(seen.entered[2].ago, 3s);
    EXPECT_EQ(seen.phase_elapsed, 3s);
    // The next poll with nothing new enters nothing.
    clock.advance(2s);
    EXPECT_FALSE(
        watch.observe(0, {"[2026-11-29 08:00:07 TP0] Capture cuda graph begin."}, clock.now()).phase_changed);
}

TEST(ProgressLines, SplitsOnNewlinesAndCarriageReturnsKeepingTheLast) {
    EXPECT_EQ(split_log_lines("a\nb\r\nshards 10%\rshards 20%\n\n", 10),
              (std::vector<std::string>{"a", "b", "shards 10%", "shards 20%"}));
    EXPECT_EQ(split_log_lines("a\nb\nc", 2), (std::vector<std::string>{"b", "c"}));
    EXPECT_TRUE(split_log_lines("", 5).empty());
}

}  // namespace
}  // namespace pdctl::engine
