// The live view's screen for given events and a given moment: no terminal, no waiting.
#include "pdctl/report/live_view_model.hpp"

#include <gtest/gtest.h>

#include "pdctl/plan/builder.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::report {
using engine::Duration;

using engine::UnitProgress;
using runtime::Phase;

namespace {

using namespace std::chrono_literals;
using Lines = std::vector<std::string>;

UnitProgress progress(Phase phase, Duration stage_elapsed, Duration phase_elapsed, bool changed,
                      std::optional<std::pair<Phase, Duration>> previous = std::nullopt,
                      Duration stalled_for = 0s) {
    UnitProgress p;
    p.phase = phase;
    p.stage_elapsed = stage_elapsed;
    p.phase_elapsed = phase_elapsed;
    p.phase_changed = changed;
    p.stalled_for = stalled_for;
    if (previous) {
        p.previous = previous->first;
        p.previous_took = previous->second;
    }
    return p;
}

std::string joined(const Lines& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

class LiveViewModelTest : public ::testing::Test {
  protected:
    LiveViewModelTest() {
        model.run_begin("start", plan, t0);
        model.stage_begin("start", master, t0);
        model.unit_done("start", master.units[0]);
        model.stage_ready(master, 1s);
        model.stage_begin("start", prefill, t1);
    }

    // prefill 38 s in: rank 0 capturing CUDA graphs after init, weights and KV; ranks 1-2 loading
    // weights, rank 3 too but its log has been quiet for 35 s; rank 2 logged the TCP fallback.
    void prefill_under_way() {
        const auto& rank0 = prefill.units[0];
        model.unit_progress(prefill, rank0, progress(Phase::kInitialising, 0s, 0s, true), t1);
        model.unit_progress(prefill, rank0,
                            progress(Phase::kLoadingWeights, 3s, 0s, true, {{Phase::kInitialising, 3s}}),
                            t1 + 3s);
        model.unit_progress(prefill, rank0,
                            progress(Phase::kKvCache, 23s, 0s, true, {{Phase::kLoadingWeights, 20s}}),
                            t1 + 23s);
        model.unit_progress(prefill, rank0,
                            progress(Phase::kCudaGraphs, 26s, 0s, true, {{Phase::kKvCache, 3s}}), t1 + 26s);
        for (int rank = 1; rank <= 3; ++rank) {
            auto entered = progress(Phase::kLoadingWeights, 3s, 0s, true, {{Phase::kInitialising, 3s}});
            if (rank == 2)
                entered.new_warnings = {"Mooncake found no RDMA device: KV transfer falls back to TCP"};
            model.unit_progress(prefill, prefill.units[rank], entered, t1 + 3s);
            model.unit_progress(prefill, prefill.units[rank],
                                progress(Phase::kLoadingWeights, 36s, 33s, false, {}, rank == 3 ? 33s : 0s),
                                t1 + 36s);
        }
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    const plan::Stage& master = *plan.find_stage("mooncake-master");
    const plan::Stage& prefill = *plan.find_stage("prefill");
    LiveClock::time_point t0 = LiveClock::time_point{} + 1000h;
    LiveClock::time_point t1 = t0 + 1s;
    LiveViewModel model;
    LiveStyle plain{false};
};

TEST_F(LiveViewModelTest, OneLinePerRoleRankZeroAloneRanksSharingAPhaseCollapsed) {
    prefill_under_way();
    const Lines expected = {
        "start demo · 0:39",
        " ✓ mooncake-master  0:01  n1        ready",
        " ◐ prefill          0:38  n1 rank0  capturing CUDA graphs 0:12 · init 0:03, weights 0:20, KV 0:03",
        "                          n2–n3     joined, loading weights 0:35",
        "                          n4 rank3  joined, loading weights 0:35 · quiet 0:35",
        "                          n3 rank2  warning: Mooncake found no RDMA device: KV transfer falls back "
        "to TCP",
        " · decode                 —         waiting for prefill",
        " · router                 —         waiting for prefill and decode",
    };
    EXPECT_EQ(joined(model.render(t1 + 38s, plain)), joined(expected));
}

TEST_F(LiveViewModelTest, FinalBlockAfterAFailureNamesThePhaseItDiedIn) {
    prefill_under_way();
    model.stage_failed({"prefill", "n3", "10.0.0.3", 2, "exited (code 1)", {}, "", {}}, 45s);
    model.stage_begin("cleanup", prefill, t1 + 45s);
    model.stage_begin("cleanup", master, t1 + 45s);
    model.unit_done("cleanup", master.units[0]);
    model.run_end({"start", ExitCode::kStageFailed, "prefill failed: exited (code 1)", 47s, {"prefill"}});
    EXPECT_FALSE(model.active());
    const Lines expected = {
        "start demo · took 0:47",
        " · mooncake-master        n1        stopped (clean-up)",
        " ✗ prefill          0:45  n3 rank2  exited (code 1) while loading weights",
        "                          n3 rank2  warning: Mooncake found no RDMA device: KV transfer falls back "
        "to TCP",
        " · decode                 —         not started",
        " · router                 —         not started",
    };
    EXPECT_EQ(joined(model.render(t1 + 500s, plain)), joined(expected));
}

TEST_F(LiveViewModelTest, ReadyRoleKeepsRankZerosPhaseTimes) {
    prefill_under_way();
    model.stage_ready(prefill, 50s);
    const auto lines = model.render(t1 + 60s, plain);
    EXPECT_EQ(lines[2],
              " ✓ prefill          0:50  n1–n4     ready · init 0:03, weights 0:20, KV 0:03, graphs 0:24");
    EXPECT_EQ(lines[4], " · decode                 —         queued") << "its dependency is ready";
}

TEST_F(LiveViewModelTest, WithoutProgressTheGateAnswerShows) {
    model.gate_waiting(prefill, "HTTP 503");
    EXPECT_EQ(model.render(t1 + 5s, plain)[2],
              " ◐ prefill          0:05  n1–n4  waiting for rank0 /health == 200: HTTP 503");
}

TEST_F(LiveViewModelTest, StalledIsTheEnginesVerdictNotASilenceOfItsOwn) {
    prefill_under_way();
    auto stalled = progress(Phase::kLoadingWeights, 40s, 37s, false, {}, 37s);
    stalled.verdict = engine::RankVerdict::kStalled;
    stalled.verdict_changed = true;
    model.unit_progress(prefill, prefill.units[3], stalled, t1 + 40s);
    EXPECT_EQ(model.render(t1 + 40s, plain)[4],
              "                          n4 rank3  joined, loading weights 0:37 · stalled 0:37");
}

TEST_F(LiveViewModelTest, ColoursOnlyWhenAsked) {
    prefill_under_way();
    auto stalled = progress(Phase::kLoadingWeights, 38s, 35s, false, {}, 35s);
    stalled.verdict = engine::RankVerdict::kStalled;
    model.unit_progress(prefill, prefill.units[3], stalled, t1 + 38s);
    const auto coloured = joined(model.render(t1 + 38s, LiveStyle{true}));
    EXPECT_NE(coloured.find("\x1b[32m✓\x1b[0m"), std::string::npos);
    EXPECT_NE(coloured.find("\x1b[33mstalled 0:35\x1b[0m"), std::string::npos);
    EXPECT_EQ(joined(model.render(t1 + 38s, plain)).find('\x1b'), std::string::npos);
}

TEST_F(LiveViewModelTest, StopVerb) {
    model.run_end({"start", ExitCode::kOk, "", 1s, {}});
    model.run_begin("stop", plan, t1);
    model.stage_begin("stop", *plan.find_stage("router"), t1);
    model.unit_done("stop", plan.find_stage("router")->units[0]);
    const auto lines = model.render(t1 + 1s, plain);
    EXPECT_EQ(lines[0], "stop demo · 0:01");
    EXPECT_NE(lines[1].find("pending"), std::string::npos) << lines[1];
    EXPECT_NE(lines.back().find("✓ router"), std::string::npos) << lines.back();
    EXPECT_NE(lines.back().find("stopped"), std::string::npos) << lines.back();
}

TEST(FitWidth, CountsCodePointsAndSkipsColourSequences) {
    EXPECT_EQ(fit_width("✓ abc", 3), "✓ a");
    EXPECT_EQ(fit_width("n2–n4 joined", 5), "n2–n4");
    EXPECT_EQ(fit_width("short", 80), "short");
    EXPECT_EQ(fit_width("\x1b[32m✓\x1b[0m abc", 2), "\x1b[32m✓\x1b[0m \x1b[0m");
}

}  // namespace
}  // namespace pdctl::report
