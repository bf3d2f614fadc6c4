// Timelines and learned deadlines on the simulated cluster (block 89): three starts teach a deadline
// that `plan` shows; a fourth with slow weights (pdsim's PDSIM_WEIGHTS_MS, from pdctl's environment,
// so the config and its fingerprint stay the same) is warned about while it runs; `timeline` draws
// the run from the journal, in the terminal, SVG, HTML and JSON.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

class TimelineTest : public ::testing::Test {
  protected:
    void SetUp() override {
        // The plan learns from this machine's journal copy: one of the test's own.
        ::setenv("XDG_STATE_HOME", (cluster.state_dir().parent_path().parent_path() / "xdg").c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("XDG_STATE_HOME");
        ::unsetenv("PDSIM_WEIGHTS_MS");
    }
    const json* stage_of(const json& plan, const std::string& role) {
        for (const auto& stage : plan["stages"])
            if (stage["role"] == role) return &stage;
        return nullptr;
    }
    SimCluster cluster{"timeline", 89};
};

TEST_F(TimelineTest, ThreeStartsTeachADeadlineASlowPhaseIsWarnedAboutAndTheRunIsDrawn) {
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto two = cluster.run({"plan", "--deadline-floor", "1s"});
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_NE(two.out.find("configured: 1 of the 3 successful starts needed to learn one"), std::string::npos)
        << two.out;
    for (int i = 0; i < 2; ++i) ASSERT_EQ(cluster.run({"restart"}).exit_code, 0);

    // Learned: the plan says so with the numbers, and the deadline is below the configured 2m.
    const auto plan = cluster.run({"plan", "--deadline-floor", "1s"});
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_NE(plan.out.find(": learned from 3 starts: p95 "), std::string::npos) << plan.out;
    EXPECT_NE(plan.out.find("configured 2m00s)"), std::string::npos) << plan.out;
    const auto planned = json::parse(cluster.run({"--json", "plan", "--deadline-floor", "1s"}).out);
    const auto* prefill = stage_of(planned, "prefill");
    ASSERT_NE(prefill, nullptr);
    EXPECT_LT((*prefill)["gate"]["deadline_ms"].get<long long>(), 120000);
    EXPECT_GE((*prefill)["gate"]["deadline_ms"].get<long long>(), 1000);
    EXPECT_EQ((*prefill)["gate"]["deadline_note"].get<std::string>().rfind("learned from 3 starts", 0), 0u);
    const auto fixed = json::parse(cluster.run({"--json", "plan", "--deadline-policy", "fixed"}).out);
    EXPECT_EQ((*stage_of(fixed, "prefill"))["gate"]["deadline_ms"], 120000);
    EXPECT_EQ(cluster.run({"plan", "--deadline-policy", "sometimes"}).exit_code, 2);
    EXPECT_EQ(cluster.run({"start", "--deadline-floor", "soon"}).exit_code, 2);

    // Slow weights on every rank: the start is warned about once per group while it runs, and the
    // learned deadline (the floor, 1m) still lets it through.
    ::setenv("PDSIM_WEIGHTS_MS", "5000", 1);
    const auto slow = cluster.run({"--json", "restart"});
    ::unsetenv("PDSIM_WEIGHTS_MS");
    ASSERT_EQ(slow.exit_code, 0) << slow.out << slow.err;
    std::vector<std::string> notes;
    for (const auto& event : slow.events())
        if (event["event"] == "note") notes.push_back(event["message"]);
    int weights_warnings = 0;
    bool deadline_said = false;
    for (const auto& note : notes) {
        if (note.find("loading weights") != std::string::npos &&
            note.find("slower than any of the last 3 starts") != std::string::npos)
            ++weights_warnings;
        if (note.rfind("prefill gate deadline 1m00s: learned from 3 starts", 0) == 0) deadline_said = true;
    }
    EXPECT_EQ(weights_warnings, 2) << "prefill and decode, once each:\n" << slow.out;
    EXPECT_TRUE(deadline_said) << slow.out;

    // The timeline of that run, from the journal.
    const auto drawn = cluster.run({"--json", "timeline"});
    ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
    const auto timeline = json::parse(drawn.out);
    ASSERT_EQ(timeline["stages"].size(), 4u);
    EXPECT_EQ(timeline["verb"], "restart");
    const auto& prefill_stage = timeline["stages"][1];
    EXPECT_EQ(prefill_stage["role"], "prefill");
    ASSERT_EQ(prefill_stage["units"].size(), 4u);
    for (const auto& unit : prefill_stage["units"]) {
        long long weights = 0;
        std::vector<std::string> phases;
        for (const auto& phase : unit["phases"]) {
            phases.push_back(phase["phase"]);
            if (phase["phase"] == "loading-weights") weights = phase["ms"];
        }
        EXPECT_GE(weights, 3000) << unit.dump();
        EXPECT_EQ(phases.back(), unit["rank"] == 0 ? "ready" : "joined") << unit.dump();
    }
    EXPECT_NE(timeline["critical_path"].get<std::string>().find("prefill"), std::string::npos);

    const auto dir = cluster.config().parent_path();
    const auto text = cluster.run({"timeline", "--width", "100", "--svg", (dir / "t.svg").string(), "--html",
                                   (dir / "t.html").string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("prefill n3 r2"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("WWW"), std::string::npos) << text.out;
    const auto svg = read_text(dir / "t.svg");
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    std::size_t gates = 0;
    for (auto at = svg.find("class=\"gate\" points"); at != std::string::npos;
         at = svg.find("class=\"gate\" points", at + 1))
        ++gates;
    EXPECT_EQ(gates, 4u) << "one gate marker per stage";
    EXPECT_NE(read_text(dir / "t.html").find("<!DOCTYPE html>"), std::string::npos);

    // Compared with the first start: the slow weights show as a change.
    const auto history = cluster.run({"--json", "history", "--limit", "0"});
    const auto runs = json::parse(history.out)["runs"];
    ASSERT_GE(runs.size(), 4u);
    const std::string first = runs.back()["run"];
    const auto versus = cluster.run({"timeline", "last", "--vs", first});
    ASSERT_EQ(versus.exit_code, 0) << versus.err;
    EXPECT_NE(versus.out.find("CHANGE"), std::string::npos) << versus.out;
    EXPECT_NE(versus.out.find("  loading weights"), std::string::npos) << versus.out;
    EXPECT_EQ(cluster.run({"timeline", "19990101"}).exit_code, 2);
}

}  // namespace
}  // namespace pdctl::testing
