// The pace warning while a start runs (ops/pace_reporter.hpp), including for a phase that began
// and ended between two progress polls.
#include "pdctl/ops/pace_reporter.hpp"

#include <gtest/gtest.h>

#include "pdctl/plan/builder.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::ops {
namespace {

using namespace std::chrono_literals;
using runtime::Phase;

class PaceReporterTest : public ::testing::Test {
  protected:
    PaceReporterTest() {
        timeline::StageSamples recorded;
        recorded.ready_ms = {10000, 11000, 12000};
        recorded.phase_ms["loading-weights"] = {1000, 1000, 2000};
        recorded.phase_ms["kv-cache"] = {1000, 1000, 1000};
        history.stages[prefill().fingerprint()] = recorded;
    }
    const plan::Stage& prefill() const { return *plan.find_stage("prefill"); }
    std::vector<std::string> notes() const {
        std::vector<std::string> out;
        for (const auto& event : recorder.events)
            if (event.rfind("note ", 0) == 0) out.push_back(event.substr(5));
        return out;
    }
    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    timeline::StartHistory history;
    testing::RecordingReporter recorder;
};

engine::UnitProgress moved(Phase from, std::chrono::milliseconds from_took,
                           std::vector<engine::UnitProgress::PhaseStart> entered) {
    engine::UnitProgress progress;
    progress.phase_changed = true;
    progress.previous = from;
    progress.previous_took = from_took;
    progress.entered = std::move(entered);
    progress.phase = progress.entered.back().phase;
    progress.phase_elapsed = progress.entered.back().ago;
    progress.stage_elapsed = 9000ms;
    return progress;
}

TEST(FinishedPhases, ThePreviousPhaseEndsWhereTheFirstNewOneBeginsAndEachNewOneWhereTheNextDoes) {
    // Weights began 6.5 s before the current phase; KV cache ran 1.5 s of that, CUDA graphs is now.
    const auto progress =
        moved(Phase::kLoadingWeights, 6500ms, {{Phase::kKvCache, 1800ms}, {Phase::kCudaGraphs, 300ms}});
    const auto finished = engine::finished_phases(progress);
    ASSERT_EQ(finished.size(), 2u);
    EXPECT_EQ(finished[0].phase, Phase::kLoadingWeights);
    EXPECT_EQ(finished[0].took, 5000ms);
    EXPECT_EQ(finished[1].phase, Phase::kKvCache);
    EXPECT_EQ(finished[1].took, 1500ms);

    engine::UnitProgress steady;
    steady.phase = Phase::kKvCache;
    EXPECT_TRUE(engine::finished_phases(steady).empty()) << "nothing ends in a poll that saw no change";
}

TEST_F(PaceReporterTest, APhaseThatEndedBetweenTwoPollsIsJudgedByHowLongItTook) {
    PaceReporter pace(recorder, history);
    const auto& unit = prefill().units.back();
    // Weights ran 5 s (past the 2 s record by more than the 2 s slack) and ended before the poll saw it
    // running that long; the current phase is young.
    pace.unit_progress(prefill(), unit, moved(Phase::kLoadingWeights, 5000ms, {{Phase::kKvCache, 400ms}}));
    ASSERT_EQ(notes().size(), 1u);
    EXPECT_EQ(notes()[0], "prefill loading weights 5.0s on " + unit.node + " rank " +
                              std::to_string(unit.rank) +
                              ": slower than any of the last 3 starts (max 2.0s)");
    EXPECT_EQ(recorder.progress.size(), 1u) << "the progress itself goes on";
}

TEST_F(PaceReporterTest, APhaseWithinItsRecordAndWaitingPhasesAreNotWarnedAbout) {
    PaceReporter pace(recorder, history);
    const auto& unit = prefill().units.back();
    pace.unit_progress(prefill(), unit, moved(Phase::kLoadingWeights, 3900ms, {{Phase::kKvCache, 0ms}}));
    pace.unit_progress(prefill(), unit, moved(Phase::kKvCache, 2500ms, {{Phase::kJoined, 60000ms}}));
    EXPECT_TRUE(notes().empty()) << notes().front();
}

}  // namespace
}  // namespace pdctl::ops
