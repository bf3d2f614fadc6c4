// The journaling tee: the real engine on the fake cluster, every event forwarded, the record parsed back.
#include "pdctl/ops/journaling_reporter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "pdctl/engine/engine.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/state/journal.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::ops {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using ::testing::HasSubstr;

std::vector<json> lines_of(const std::string& record) {
    std::vector<json> lines;
    std::istringstream in(record);
    std::string line;
    while (std::getline(in, line)) lines.push_back(json::parse(line));
    return lines;
}

class JournalingReporterTest : public ::testing::Test {
  protected:
    void SetUp() override {
        engine::interrupt_signal() = 0;
        redactor.add_secret("hf_secret_value_123");
    }
    void TearDown() override { engine::interrupt_signal() = 0; }

    JournalRun run_info(const std::string& verb) {
        return {"20261129T081203Z-abcdef", verb, "alice@jump1", plan.cluster, plan.fingerprint, "0.1.0", ""};
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    engine::FakeClock clock;
    testing::FakeCluster nodes{plan, clock};
    testing::RecordingReporter inner;
    util::Redactor redactor;
};

TEST_F(JournalingReporterTest, ForwardsEveryEventAndRecordsASuccessfulStart) {
    JournalingReporter journal(inner, redactor, run_info("start"));
    engine::Engine engine(plan, nodes.backend, nodes, clock, journal);
    ASSERT_EQ(engine.start(), ExitCode::kOk);
    const std::vector<std::string> expected_inner = inner.events;  // what the operator saw
    EXPECT_EQ(expected_inner.front(), "begin start");
    EXPECT_EQ(expected_inner.back(), "end start");

    const auto lines = lines_of(journal.finish(ExitCode::kOk));
    ASSERT_GE(lines.size(), 3u);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i]["run"], "20261129T081203Z-abcdef");
        EXPECT_EQ(lines[i]["seq"], static_cast<int>(i));
        EXPECT_EQ(lines[i]["verb"], "start");
        EXPECT_TRUE(lines[i].contains("ts"));
    }
    EXPECT_EQ(lines.front()["event"], "record_begin");
    EXPECT_EQ(lines.front()["who"], "alice@jump1");
    EXPECT_EQ(lines.front()["config"], plan.fingerprint);
    EXPECT_EQ(lines.back()["event"], "record_end");
    EXPECT_EQ(lines.back()["exit_code"], 0);
    EXPECT_FALSE(lines.back().contains("failed"));

    int stage_begins = 0, stage_readies = 0, stage_ends = 0, unit_dones = 0;
    for (const auto& line : lines) {
        stage_begins += line["event"] == "stage_begin";
        stage_readies += line["event"] == "stage_ready";
        stage_ends +=
            line["event"] == "stage_end" && line["result"] == "ready" && line.contains("elapsed_ms");
        unit_dones += line["event"] == "unit_done";
    }
    EXPECT_EQ(stage_begins, 4);
    EXPECT_EQ(stage_readies, 4);
    EXPECT_EQ(stage_ends, 4);
    EXPECT_EQ(unit_dones, 10) << "one per node and role: master 1, prefill 4, decode 4, router 1";

    const auto runs = state::journal::parse_history(journal.finish(ExitCode::kOk));
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].result, "success");
    EXPECT_TRUE(runs[0].complete);
}

TEST_F(JournalingReporterTest, AFailedStartNamesTheFailedStageAndNodeAndNeverASecret) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-2"].crash_after = 7s;
    nodes.behaviour["pd-demo-prefill-2"].log = {{0s, "HF_TOKEN=hf_secret_value_123 in the log"},
                                                {6s, "Scheduler hit an exception: boom"}};
    JournalingReporter journal(inner, redactor, run_info("start"));
    engine::Engine engine(plan, nodes.backend, nodes, clock, journal);
    const auto code = engine.start();
    ASSERT_EQ(code, ExitCode::kStageFailed);
    journal.journal_note("also hf_secret_value_123 in a note");
    const std::string record = journal.finish(code);
    EXPECT_THAT(record, ::testing::Not(HasSubstr("hf_secret_value_123")));
    EXPECT_THAT(record, HasSubstr("[REDACTED]"));

    const auto runs = state::journal::parse_history(record);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].exit_code, 4);
    EXPECT_EQ(runs[0].result, "stage failed");
    EXPECT_EQ(runs[0].failed_role, "prefill");
    EXPECT_EQ(runs[0].failed_node, "n3");
    EXPECT_EQ(runs[0].failed_rank, 2);
    EXPECT_EQ(runs[0].failed_reason, "exited (code 1)");
    EXPECT_THAT(runs[0].message, HasSubstr("prefill failed"));
    EXPECT_EQ(inner.failure.node, "n3") << "the operator's reporter saw the failure too";
}

TEST_F(JournalingReporterTest, RestartIsOneRunAndEventsAfterFinishAreNotRecorded) {
    JournalingReporter journal(inner, redactor, run_info("restart"));
    engine::Engine engine(plan, nodes.backend, nodes, clock, journal);
    ASSERT_EQ(engine.restart(), ExitCode::kOk);
    const std::string record = journal.finish(ExitCode::kOk);
    journal.note("after the end");
    EXPECT_EQ(inner.events.back(), "note after the end") << "still forwarded";
    EXPECT_EQ(journal.finish(ExitCode::kOk), record) << "no longer recorded";

    const auto runs = state::journal::parse_history(record);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].verb, "restart");
    int run_ends = 0, stop_stage_ends = 0;
    for (const auto& line : lines_of(record)) {
        run_ends += line["event"] == "run_end";
        stop_stage_ends +=
            line["event"] == "stage_end" && line["action"] == "stop" && line["result"] == "done";
    }
    EXPECT_EQ(run_ends, 2) << "the stop and the start inside the restart";
    EXPECT_EQ(stop_stage_ends, 4) << "stop stages end without an event of their own";
}

TEST(RedactJson, ReplacesSecretsInValuesAndKeysAtAnyDepth) {
    util::Redactor redactor;
    redactor.add_secret("s3cr3t-value");
    json value = {{"a", "x s3cr3t-value y"}, {"list", {"s3cr3t-value", 1}}, {"s3cr3t-value", {{"b", true}}}};
    redact_json(value, redactor);
    EXPECT_EQ(value.dump().find("s3cr3t-value"), std::string::npos);
    EXPECT_EQ(value["a"], "x [REDACTED] y");
    EXPECT_EQ(value["list"][1], 1);
    EXPECT_TRUE(value.contains("[REDACTED]"));
}

}  // namespace
}  // namespace pdctl::ops

namespace pdctl::ops {
namespace {

TEST(JournalingReporterTimeline, RecordsEachPhaseEnteredWithItsDateAndTheStagesFingerprint) {
    const auto plan = plan::build_plan(testing::sample_cluster());
    const auto& stage = *plan.find_stage("prefill");
    testing::RecordingReporter inner;
    util::Redactor redactor;
    JournalingReporter journal(inner, redactor,
                               {"r1", "start", "a@b", plan.cluster, plan.fingerprint, "0.1.0", ""});
    journal.stage_begin("start", stage);
    engine::UnitProgress progress;
    progress.phase = runtime::Phase::kKvCache;
    progress.phase_changed = true;
    progress.entered = {{runtime::Phase::kLoadingWeights, std::chrono::milliseconds(5000)},
                        {runtime::Phase::kKvCache, std::chrono::milliseconds(1000)}};
    journal.unit_progress(stage, stage.units[1], progress);
    progress.phase_changed = false;  // a periodic refresh: nothing recorded
    journal.unit_progress(stage, stage.units[1], progress);

    std::vector<nlohmann::json> phases;
    nlohmann::json begin;
    std::istringstream in(journal.finish(ExitCode::kOk));
    for (std::string line; std::getline(in, line);) {
        auto entry = nlohmann::json::parse(line);
        if (entry["event"] == "unit_phase") phases.push_back(entry);
        if (entry["event"] == "stage_begin") begin = entry;
    }
    EXPECT_EQ(begin["fingerprint"], stage.fingerprint());
    EXPECT_EQ(begin["deadline_ms"], stage.gate.deadline.count());
    EXPECT_EQ(begin["kind"], "sglang");
    ASSERT_EQ(phases.size(), 2u);
    EXPECT_EQ(phases[0]["phase"], "loading-weights");
    EXPECT_EQ(phases[1]["phase"], "kv-cache");
    EXPECT_EQ(phases[0]["node"], stage.units[1].node);
    EXPECT_EQ(phases[0]["rank"], 1);
    // Dated back from the moment it was recorded by how long ago each phase began.
    EXPECT_EQ(phases[1]["began_epoch_ms"].get<long long>() - phases[0]["began_epoch_ms"].get<long long>(),
              4000);
    EXPECT_LE(phases[1]["began_epoch_ms"].get<long long>(), phases[1]["epoch_ms"].get<long long>() - 1000);
    EXPECT_FALSE(stage.fingerprint().empty());
}

}  // namespace
}  // namespace pdctl::ops
