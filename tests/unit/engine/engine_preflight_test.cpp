// start's preflight: asked for exactly the stages it will start, before any unit starts; a problem ends
// the start with exit 10 and nothing started; --skip-preflight is recorded.
#include <gtest/gtest.h>

#include "pdctl/engine/engine.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

class EnginePreflightTest : public ::testing::Test {
  protected:
    void SetUp() override { interrupt_signal() = 0; }

    EngineOptions with_preflight(std::vector<std::string> problems) {
        backend::NodeChecks checks;
        checks.preflight = [this, problems](const std::vector<std::string>& roles) {
            asked.push_back(roles);
            started_before_preflight = nodes.count("start ");
            PreflightAnswer answer;
            answer.problems = problems;
            answer.nodes = 8;
            return answer;
        };
        nodes.backend.set_checks(std::move(checks));
        return {};
    }
    bool noted(const std::string& prefix) const {
        for (const auto& event : reporter.events)
            if (event.rfind("note " + prefix, 0) == 0) return true;
        return false;
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    FakeClock clock;
    testing::FakeCluster nodes{plan, clock};
    testing::RecordingReporter reporter;
    std::vector<std::vector<std::string>> asked;
    std::size_t started_before_preflight = 99;
};

TEST_F(EnginePreflightTest, AProblemEndsTheStartWithExit10BeforeAnyUnitStarted) {
    const std::string busy = "GPU003 GPUs on n6 are busy: compute processes: pid 432 python3 (19592 MiB)";
    EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, with_preflight({busy})).start(),
              ExitCode::kNodeCheckFailed);
    EXPECT_EQ(nodes.count("start "), 0u);
    EXPECT_EQ(reporter.summary.code, ExitCode::kNodeCheckFailed);
    EXPECT_NE(reporter.summary.message.find("preflight found 1 problem before anything started: " + busy),
              std::string::npos)
        << reporter.summary.message;
}

TEST_F(EnginePreflightTest, ItIsAskedForTheStagesToStartOnlyAndThePassIsRecorded) {
    ASSERT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, with_preflight({})).start(), ExitCode::kOk);
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_EQ(asked[0], (std::vector<std::string>{"mooncake-master", "prefill", "decode", "router"}));
    EXPECT_EQ(started_before_preflight, 0u);
    EXPECT_TRUE(noted("preflight passed on 8 nodes"));
    // Decode drifted: the preflight looks at decode and the router after it, after they were stopped.
    for (const auto& unit : plan.find_stage("decode")->units) nodes.preload_running(unit, "0123456789ab");
    nodes.events.clear();
    ASSERT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, with_preflight({})).start(), ExitCode::kOk);
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_EQ(asked[1], (std::vector<std::string>{"decode", "router"}));
}

TEST_F(EnginePreflightTest, SkippingItIsRecorded) {
    EngineOptions options;
    options.preflight_skipped = true;
    ASSERT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, options).start(), ExitCode::kOk);
    EXPECT_TRUE(noted("preflight skipped (--skip-preflight)"));
}

}  // namespace
}  // namespace pdctl::engine
