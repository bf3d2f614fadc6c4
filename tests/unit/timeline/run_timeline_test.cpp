// The journal's lines of a start read back as a timeline (timeline/run_timeline.hpp) and its critical
// path (timeline/critical_path.hpp), on the fixed journal tests/golden/timeline/start.journal.jsonl
// (make_journal.py writes it: A with prefill rank 2 slow, B clean, C failed in decode).
#include "pdctl/timeline/run_timeline.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pdctl/timeline/critical_path.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::timeline {
namespace {

std::string fixture_journal() {
    std::ifstream in(std::string(pdctl::testing::source_dir()) +
                     "/tests/golden/timeline/start.journal.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

const StageTimeline& stage(const RunTimeline& run, const std::string& role) {
    for (const auto& candidate : run.stages)
        if (candidate.role == role) return candidate;
    throw std::runtime_error("no stage " + role);
}

TEST(RunTimeline, ReadsEveryStartWithItsStagesUnitsAndPhasesBackToBack) {
    const auto runs = read_timelines(fixture_journal());
    ASSERT_EQ(runs.size(), 3u);
    const auto& a = runs[0];
    EXPECT_EQ(a.run, "20261202T120000Z-a1b2c3");
    EXPECT_EQ(a.who, "oncall@ctl");
    EXPECT_TRUE(a.succeeded());
    ASSERT_EQ(a.stages.size(), 4u);
    const auto& prefill = stage(a, "prefill");
    EXPECT_EQ(prefill.fingerprint, "9b8c7d6e5f4a3b21");
    EXPECT_EQ(prefill.deadline_ms, 1500000);
    ASSERT_EQ(prefill.units.size(), 4u);
    ASSERT_TRUE(prefill.ready_ms.has_value());
    EXPECT_EQ(prefill.end_ms, *prefill.ready_ms);
    for (const auto& unit : prefill.units) {
        ASSERT_FALSE(unit.phases.empty());
        EXPECT_EQ(unit.phases.front().phase, "starting") << "launched before its first recognised line";
        EXPECT_EQ(unit.phases.front().begin_ms, unit.launched_ms);
        for (std::size_t i = 1; i < unit.phases.size(); ++i)
            EXPECT_EQ(unit.phases[i - 1].end_ms, unit.phases[i].begin_ms) << unit.node << " " << i;
        EXPECT_EQ(unit.end_ms(), prefill.end_ms) << "the last phase lasts until the gate";
    }
    // Rank 2 loaded its weights for 6 + 3 minutes; the others waited in theirs at the all-reduce.
    EXPECT_EQ(prefill.units[2].node, "n3");
    EXPECT_EQ(prefill.units[2].phase_ms("loading-weights"), 540000);
    EXPECT_EQ(prefill.units[0].phase_ms("ready"), 400) << "from its ready line to the gate";
}

TEST(RunTimeline, AFailedStartEndsAtTheFailureAndNamesTheUnit) {
    const auto runs = read_timelines(fixture_journal());
    const auto& c = runs[2];
    EXPECT_EQ(c.exit_code, 4);
    ASSERT_EQ(c.stages.size(), 3u) << "the router never started";
    const auto& decode = stage(c, "decode");
    EXPECT_FALSE(decode.ready_ms.has_value());
    EXPECT_EQ(decode.failed_node, "n6");
    EXPECT_EQ(decode.failed_rank, 1);
    EXPECT_EQ(decode.failure, "n6 rank 1: exited (code 1)");
    EXPECT_EQ(decode.units[1].phases.back().phase, "failed");
}

TEST(RunTimeline, SkipsDamagedLinesAndRunsThatStartedNothing) {
    const std::string journal =
        "not json\n"
        "{\"run\":\"r1\",\"epoch_ms\":1000,\"verb\":\"stop\",\"event\":\"stage_begin\",\"action\":\"stop\","
        "\"role\":\"decode\"}\n"
        "{\"epoch_ms\":1000,\"event\":\"stage_begin\",\"action\":\"start\",\"role\":\"x\"}\n"
        "{\"run\":\"r2\",\"epoch_ms\":2000,\"verb\":\"start\",\"event\":\"stage_begin\",\"action\":\"start\","
        "\"role\":\"master\"}\n"
        "{\"run\":\"r2\",\"epoch_ms\":2500,\"verb\":\"start\",\"event\":\"unit_done\",\"action\":\"start\","
        "\"role\":\"master\",\"node\":\"n1\",\"rank\":0}\n"
        "{\"run\":\"r2\",\"epoch_ms\":2600,\"verb\":\"start\",\"event\":\"unit_phase\",\"role\":\"master\","
        "\"node\":\"n1\",\"rank\":0,\"phase\":\"ready\",\"began_epoch_ms\":1}\n";
    const auto runs = read_timelines(journal);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].run, "r2");
    EXPECT_EQ(runs[0].exit_code, -1) << "no end line: unfinished";
    const auto& unit = runs[0].stages[0].units.at(0);
    EXPECT_EQ(unit.phases.back().begin_ms, 2000) << "a phase never begins before its stage";
}

TEST(RunTimeline, FindRunTakesLastAnIdOrAUniquePrefix) {
    const auto runs = read_timelines(fixture_journal());
    std::string error;
    EXPECT_EQ(find_run(runs, "last", error)->run, "20261202T154000Z-0f9e8d");
    EXPECT_EQ(find_run(runs, "20261202T13", error)->run, "20261202T134000Z-d4e5f6");
    EXPECT_EQ(find_run(runs, "20261202T", error), nullptr);
    EXPECT_EQ(error,
              "20261202T names 3 runs: 20261202T120000Z-a1b2c3, 20261202T134000Z-d4e5f6, "
              "20261202T154000Z-0f9e8d");
    EXPECT_EQ(find_run(runs, "2025", error), nullptr);
    EXPECT_NE(error.find("no start 2025"), std::string::npos) << error;
    EXPECT_EQ(find_run({}, "last", error), nullptr);
}

TEST(CriticalPath, NamesTheRankTheGroupWaitedForAndEveryStageOfTheChain) {
    auto runs = read_timelines(fixture_journal());
    mark_critical_path(runs[0]);
    const auto& prefill = stage(runs[0], "prefill");
    EXPECT_TRUE(prefill.critical);
    EXPECT_TRUE(prefill.units[2].critical) << "n3 rank 2 finished loading 3 minutes after its peers";
    EXPECT_FALSE(prefill.units[0].critical);
    EXPECT_TRUE(stage(runs[0], "decode").units[0].critical) << "no rank stands out: rank 0";
    for (const auto& s : runs[0].stages)
        EXPECT_TRUE(s.critical) << s.role << ": stages run one after another";
    EXPECT_EQ(describe_critical_path(runs[0]),
              "mooncake-master 2.4s → prefill n3 rank 2 14m41s → decode n5 rank 0 11m41s → router 14.0s");

    mark_critical_path(runs[2]);
    EXPECT_TRUE(stage(runs[2], "decode").units[1].critical) << "the failed unit";
}

}  // namespace
}  // namespace pdctl::timeline
