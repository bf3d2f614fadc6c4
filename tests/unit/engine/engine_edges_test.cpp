// Start follows the plan's edges: a narrow edge lets a stage start before its dependency is ready,
// while every started stage stays watched and clean-up stays in reverse plan order. Fake clock and
// fake cluster: no sleeps, no processes.
#include <gtest/gtest.h>

#include "pdctl/engine/engine.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

using namespace std::chrono_literals;

plan::Plan plan_with_decode_gate(config::DependencyGate gate) {
    auto cluster = testing::sample_cluster();
    for (auto& role : cluster.roles)
        if (role.name == "decode" && gate != config::DependencyGate::Ready)
            role.narrow_gates["prefill"] = gate;
    return plan::build_plan(cluster);
}

class EngineEdgesTest : public ::testing::Test {
  protected:
    void SetUp() override { interrupt_signal() = 0; }
    void TearDown() override { interrupt_signal() = 0; }

    // Every stage takes 5 s to become ready (FakeUnitBehaviour); prefill's bootstrap answers after 1 s.
    struct Run {
        plan::Plan plan;
        FakeClock clock;
        testing::FakeCluster nodes{plan, clock};
        testing::RecordingReporter reporter;
        explicit Run(config::DependencyGate gate) : plan(plan_with_decode_gate(gate)) {}
        ExitCode start() { return Engine(plan, nodes.backend, nodes, clock, reporter).start(); }
    };
};

TEST_F(EngineEdgesTest, BootstrapEdgeStartsDecodeBeforePrefillIsReady) {
    Run run(config::DependencyGate::Bootstrap);
    const auto began = run.clock.now();
    ASSERT_EQ(run.start(), ExitCode::kOk);
    const auto& nodes = run.nodes;
    const int bootstrap = nodes.index_of("bootstrap prefill");
    const int prefill_ready = nodes.index_of("ready prefill");
    const int decode_ready = nodes.index_of("ready decode");
    ASSERT_GE(bootstrap, 0);
    ASSERT_GE(prefill_ready, 0);
    EXPECT_GT(bootstrap, nodes.index_of("start pd-demo-prefill-3"))
        << "probed only once prefill was launched";
    for (int rank = 0; rank < 4; ++rank) {
        const int decode = nodes.index_of("start pd-demo-decode-" + std::to_string(rank));
        EXPECT_GT(decode, bootstrap) << "decode rank " << rank << " started before the bootstrap gate passed";
        EXPECT_LT(decode, prefill_ready) << "decode rank " << rank << " waited for prefill's full readiness";
    }
    // The router's edges are still `ready`: it waits for both groups.
    const int router = nodes.index_of("start pd-demo-router-0");
    EXPECT_GT(router, prefill_ready);
    EXPECT_GT(router, decode_ready);
    // master 5 s, then prefill and decode overlap (decode starts 1 s into prefill), then router 5 s.
    EXPECT_LE(run.clock.now() - began, 5s + 1s + 5s + 5s + 2s);
    EXPECT_EQ(run.reporter.summary.message, "all stages ready");
}

TEST_F(EngineEdgesTest, ReadyEdgeStartsDecodeOnlyAfterPrefillIsReady) {
    Run run(config::DependencyGate::Ready);
    const auto began = run.clock.now();
    ASSERT_EQ(run.start(), ExitCode::kOk);
    EXPECT_EQ(run.nodes.count("bootstrap "), 0u) << "no bootstrap probe without a bootstrap edge";
    EXPECT_GT(run.nodes.index_of("start pd-demo-decode-0"), run.nodes.index_of("ready prefill"));
    EXPECT_GE(run.clock.now() - began, 4 * 5s) << "four stages one after the other";
}

TEST_F(EngineEdgesTest, StartedEdgeStartsDecodeRightAfterPrefillLaunched) {
    Run run(config::DependencyGate::Started);
    ASSERT_EQ(run.start(), ExitCode::kOk);
    const int decode = run.nodes.index_of("start pd-demo-decode-0");
    EXPECT_GT(decode, run.nodes.index_of("start pd-demo-prefill-3"));
    EXPECT_LT(decode, run.nodes.index_of("ready prefill"));
    EXPECT_EQ(run.nodes.count("bootstrap "), 0u) << "a started edge probes nothing";
}

TEST_F(EngineEdgesTest, PrefillCrashWhileDecodeLoadsFailsFastAndCleansUpInReverseOrder) {
    Run run(config::DependencyGate::Bootstrap);
    run.nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    run.nodes.behaviour["pd-demo-decode-0"].ready_after = 10min;
    run.nodes.behaviour["pd-demo-prefill-2"].crash_after = 7s;
    const auto began = run.clock.now();
    EXPECT_EQ(run.start(), ExitCode::kStageFailed);

    // The liveness watch still covers prefill while decode is launched and waiting too.
    EXPECT_LE(run.clock.now() - (began + 5s + 7s), 2s) << "failure noticed too late";
    EXPECT_EQ(run.reporter.failure.role, "prefill");
    EXPECT_EQ(run.reporter.failure.rank, 2);
    const auto& nodes = run.nodes;
    EXPECT_GE(nodes.index_of("start pd-demo-decode-0"), 0);
    EXPECT_EQ(nodes.count("start pd-demo-router"), 0u);
    EXPECT_LT(nodes.index_of("stop pd-demo-decode-0"), nodes.index_of("stop pd-demo-prefill-0"));
    EXPECT_LT(nodes.index_of("stop pd-demo-prefill-0"), nodes.index_of("stop pd-demo-mooncake-master-0"));
    EXPECT_EQ(run.reporter.summary.cleaned_up,
              (std::vector<std::string>{"decode", "prefill", "mooncake-master"}));
    for (const auto& stage : run.plan.stages)
        for (const auto& unit : stage.units) EXPECT_FALSE(nodes.is_running(unit.name)) << unit.name;
}

TEST_F(EngineEdgesTest, DecodeCrashWhilePrefillLoadsIsCaughtToo) {
    Run run(config::DependencyGate::Bootstrap);
    run.nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    run.nodes.behaviour["pd-demo-decode-1"].crash_after = 3s;
    EXPECT_EQ(run.start(), ExitCode::kStageFailed);
    EXPECT_EQ(run.reporter.failure.role, "decode");
    EXPECT_EQ(run.reporter.failure.node, "n6");
    EXPECT_EQ(run.reporter.summary.cleaned_up,
              (std::vector<std::string>{"decode", "prefill", "mooncake-master"}));
}

TEST_F(EngineEdgesTest, InterruptWhileBothGroupsLoadStopsBoth) {
    Run run(config::DependencyGate::Bootstrap);
    run.nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    run.nodes.behaviour["pd-demo-decode-0"].ready_after = 10min;
    run.nodes.on_probe = [&] {
        if (run.nodes.count("start pd-demo-decode") == 4) interrupt_signal() = 2;
    };
    EXPECT_EQ(run.start(), ExitCode::kInterrupted);
    EXPECT_EQ(run.reporter.failure.role, "decode") << "reported against the newest waiting stage";
    EXPECT_FALSE(run.nodes.is_running("pd-demo-decode-0"));
    EXPECT_FALSE(run.nodes.is_running("pd-demo-prefill-0"));
    EXPECT_FALSE(run.nodes.is_running("pd-demo-mooncake-master-0"));
}

TEST_F(EngineEdgesTest, ConvergentStartKeepsAReadyPrefillAndStartsDecodeAtOnce) {
    Run run(config::DependencyGate::Bootstrap);
    ASSERT_EQ(run.start(), ExitCode::kOk);
    for (const auto& unit : run.plan.find_stage("decode")->units)
        run.nodes.preload_running(unit, "0123456789ab");
    run.nodes.events.clear();
    ASSERT_EQ(run.start(), ExitCode::kOk);
    EXPECT_EQ(run.nodes.count("start pd-demo-prefill"), 0u);
    EXPECT_EQ(run.nodes.count("start pd-demo-decode"), 4u);
    EXPECT_EQ(run.nodes.count("bootstrap "), 0u) << "a ready prefill satisfies the bootstrap edge";
}

}  // namespace
}  // namespace pdctl::engine
