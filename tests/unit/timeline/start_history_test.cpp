// Learned gate deadlines and pace warnings from past starts (timeline/start_history.hpp).
#include "pdctl/timeline/start_history.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pdctl/plan/builder.hpp"
#include "unit/support/build_paths.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::timeline {
namespace {

using namespace std::chrono_literals;

std::string history_journal() {
    std::ifstream in(std::string(pdctl::testing::source_dir()) +
                     "/tests/golden/timeline/start.journal.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

StageSamples samples(std::vector<long long> ready) {
    StageSamples out;
    out.ready_ms = std::move(ready);
    return out;
}

TEST(StartHistory, CountsOnlySuccessfulStartsPerStageFingerprint) {
    const auto history = start_history(read_timelines(history_journal()));
    const auto* prefill = history.find("9b8c7d6e5f4a3b21");
    ASSERT_NE(prefill, nullptr);
    EXPECT_EQ(prefill->ready_ms.size(), 2u) << "runs A and B; C failed";
    EXPECT_EQ(prefill->ready_ms[0], 881400) << "A: 14m41s";
    ASSERT_EQ(prefill->phase_ms.at("loading-weights").size(), 2u);
    EXPECT_EQ(prefill->phase_ms.at("loading-weights")[0], 540000) << "A's slowest rank: 9 minutes";
    EXPECT_EQ(prefill->phase_ms.at("loading-weights")[1], 360000);
    EXPECT_EQ(prefill->phase_ms.count("ready"), 0u) << "the last phase runs into the gate: not a sample";
    EXPECT_EQ(history.find("no-such-fingerprint"), nullptr);
}

TEST(StartHistory, PercentileIsNearestRank) {
    EXPECT_EQ(percentile({5, 1, 3}, 95), 5);
    EXPECT_EQ(percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 95), 19);
    EXPECT_EQ(percentile({7}, 50), 7);
}

TEST(LearnedDeadline, NeedsThreeStartsThenIsP95TimesOneAndAHalfWithinFloorAndConfigured) {
    const auto two = samples({60000, 70000});
    auto choice = choose_deadline(&two, 25min, 1min, DeadlinePolicy::kLearned);
    EXPECT_FALSE(choice.learned);
    EXPECT_EQ(choice.deadline, 25min);
    EXPECT_EQ(choice.note, "configured: 2 of the 3 successful starts needed to learn one");

    const auto seven = samples({400000, 380000, 420000, 390000, 410000, 881000, 405000});
    choice = choose_deadline(&seven, 25min, 1min, DeadlinePolicy::kLearned);
    EXPECT_TRUE(choice.learned);
    EXPECT_EQ(choice.deadline, std::chrono::milliseconds(1321500)) << "p95 = 881 s, x 1.5";
    EXPECT_EQ(choice.note,
              "learned from 7 starts: p95 14m41s × 1.5 = 22m01s (floor 1m00s, configured 25m00s)");

    const auto fast = samples({2000, 2500, 1800});
    choice = choose_deadline(&fast, 2min, 1min, DeadlinePolicy::kLearned);
    EXPECT_EQ(choice.deadline, 1min);
    EXPECT_NE(choice.note.find("raised to the floor"), std::string::npos) << choice.note;
    // The floor never lifts a deadline above the configured one.
    choice = choose_deadline(&fast, 20s, 1min, DeadlinePolicy::kLearned);
    EXPECT_EQ(choice.deadline, 20s);

    const auto slow = samples({1200000, 1300000, 1250000});
    choice = choose_deadline(&slow, 25min, 1min, DeadlinePolicy::kLearned);
    EXPECT_EQ(choice.deadline, 25min);
    EXPECT_NE(choice.note.find("capped at the configured deadline"), std::string::npos) << choice.note;

    choice = choose_deadline(&seven, 25min, 1min, DeadlinePolicy::kFixed);
    EXPECT_FALSE(choice.learned);
    EXPECT_EQ(choice.deadline, 25min);
    EXPECT_EQ(choice.note, "configured (--deadline-policy fixed; 7 past starts known)");
    EXPECT_EQ(choose_deadline(nullptr, 25min, 1min, DeadlinePolicy::kLearned).note, "");
}

TEST(LearnedDeadline, AppliesToEachStageByItsFingerprintAndToReadyEdgesCopies) {
    auto plan = plan::build_plan(testing::sample_cluster());
    StartHistory history;
    const auto& prefill = *plan.find_stage("prefill");
    history.stages[prefill.fingerprint()] = samples({10000, 12000, 11000});
    apply_deadlines(plan, history, 1s, DeadlinePolicy::kLearned);
    EXPECT_EQ(plan.find_stage("prefill")->gate.deadline, 18s);
    EXPECT_EQ(plan.find_stage("prefill")->gate.deadline_note.rfind("learned from 3 starts", 0), 0u);
    for (const auto& stage : plan.stages) {
        if (stage.role != "prefill") {
            EXPECT_EQ(stage.gate.deadline_note, "") << stage.role;
        }
        for (const auto& edge : stage.edges) {
            if (edge.role == "prefill" && edge.kind == plan::GateKind::Ready) {
                EXPECT_EQ(edge.gate.deadline, 18s);
            }
        }
    }
}

// The pass is seen up to a gate interval late: where past starts say it comes, the gate is probed five
// times as often (issue 32, start overhead).
TEST(QuickWindow, SpansTheRecordedPassesWithAnIntervalEachSideOnceThreeStartsAreKnown) {
    auto plan = plan::build_plan(testing::sample_cluster());
    const auto& prefill = *plan.find_stage("prefill");
    const auto interval = prefill.gate.interval.count();
    ASSERT_GT(interval, 0);
    StartHistory history;
    history.stages[prefill.fingerprint()] = samples({10000, 12000, 11000});
    apply_quick_windows(plan, history);
    const auto& gate = plan.find_stage("prefill")->gate;
    EXPECT_EQ(gate.quick_from.count(), 10000 - interval);
    EXPECT_EQ(gate.quick_until.count(), 12000 + interval);
    for (const auto& stage : plan.stages) {
        if (stage.role != "prefill") {
            EXPECT_EQ(stage.gate.quick_until.count(), 0) << stage.role;
        }
        for (const auto& edge : stage.edges) {
            if (edge.role == "prefill" && edge.kind == plan::GateKind::Ready) {
                EXPECT_EQ(edge.gate.quick_until, gate.quick_until);
            }
        }
    }

    history.stages[prefill.fingerprint()] = samples({10000, 12000});
    apply_quick_windows(plan, history);
    EXPECT_EQ(plan.find_stage("prefill")->gate.quick_until.count(), 0) << "two starts teach nothing";
    history.stages[prefill.fingerprint()] = samples({1000, 1000 + 30 * interval, 2000});
    apply_quick_windows(plan, history);
    EXPECT_EQ(plan.find_stage("prefill")->gate.quick_until.count(), 0) << "too wide to be worth it";
}

TEST(QuickWindow, ProbesAFifthOfTheIntervalInsideAndWakesAtItsStart) {
    plan::Gate gate;
    gate.interval = 250ms;
    EXPECT_EQ(gate.probe_interval(1000ms), 250ms) << "no window";
    gate.quick_from = 1500ms;
    gate.quick_until = 2500ms;
    EXPECT_EQ(gate.quick_interval(), 50ms);
    EXPECT_EQ(gate.probe_interval(1000ms), 250ms);
    EXPECT_EQ(gate.probe_interval(1400ms), 100ms) << "the next probe at the window's start";
    EXPECT_EQ(gate.probe_interval(1480ms), 50ms) << "never below the quick interval";
    EXPECT_EQ(gate.probe_interval(1500ms), 50ms);
    EXPECT_EQ(gate.probe_interval(2500ms), 50ms);
    EXPECT_EQ(gate.probe_interval(2501ms), 250ms);
    gate.interval = 100ms;
    EXPECT_EQ(gate.quick_interval(), 50ms) << "a floor of 50 ms";
}

TEST(PaceJudge, WarnsOnceWhenAPhaseOrTheStageRunsPastEveryRecordedStart) {
    const auto plan = plan::build_plan(testing::sample_cluster());
    const auto& prefill = *plan.find_stage("prefill");
    StartHistory history;
    auto recorded = samples({400000, 390000, 410000});
    recorded.phase_ms["loading-weights"] = {360000, 400000, 380000};
    history.stages[prefill.fingerprint()] = recorded;
    PaceJudge judge(history);
    const auto& unit = prefill.units.back();
    EXPECT_FALSE(judge.phase(prefill, unit, "loading-weights", "loading weights", 401000)) << "within a poll";
    const auto slow = judge.phase(prefill, unit, "loading-weights", "loading weights", 552000);
    ASSERT_TRUE(slow);
    EXPECT_EQ(*slow, "prefill loading weights 9m12s on " + unit.node + " rank " + std::to_string(unit.rank) +
                         ": slower than any of the last 3 starts (max 6m40s)");
    EXPECT_FALSE(judge.phase(prefill, prefill.units.front(), "loading-weights", "loading weights", 600000))
        << "once per stage and phase";
    EXPECT_FALSE(judge.phase(prefill, unit, "kv-cache", "KV cache", 999999)) << "no record of that phase";
    EXPECT_FALSE(judge.stage(prefill, 409000));
    const auto stage = judge.stage(prefill, 500000);
    ASSERT_TRUE(stage);
    EXPECT_EQ(*stage, "prefill not ready after 8m20s: slower than any of the last 3 starts (max 6m50s)");
    EXPECT_FALSE(judge.stage(prefill, 600000));

    StartHistory two;
    two.stages[prefill.fingerprint()] = samples({1000, 1000});
    PaceJudge young(two);
    EXPECT_FALSE(young.stage(prefill, 999999)) << "two starts teach nothing";
}

}  // namespace
}  // namespace pdctl::timeline
