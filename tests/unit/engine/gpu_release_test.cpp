// stop waits until the nodes of its sglang units show no GPU compute process, against a fake cluster,
// a fake clock and a scripted nvidia-smi answer per node: no sleeps.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "pdctl/engine/engine.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

using namespace std::chrono_literals;

class GpuReleaseTest : public ::testing::Test {
  protected:
    void SetUp() override { interrupt_signal() = 0; }

    // Each node's GPUs are held by `holder` until the fake clock reaches its release time.
    EngineOptions options(Duration timeout = 60s) {
        EngineOptions out;
        out.gpu_release_timeout = timeout;
        backend::NodeChecks checks;
        checks.gpu_use = [this](const config::Node& node) {
            std::lock_guard lock(mutex);
            asked.push_back(node.name);
            GpuUse use;
            use.checked = !without_nvidia_smi.count(node.name);
            const auto until = held_until.find(node.name);
            if (use.checked && until != held_until.end() && clock.now() < until->second)
                use.holders = {"pid 432 python3 19592 MiB"};
            return use;
        };
        nodes.backend.set_checks(std::move(checks));
        return out;
    }
    ExitCode stop(EngineOptions engine_options) {
        EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter).start(), ExitCode::kOk);
        asked.clear();
        return Engine(plan, nodes.backend, nodes, clock, reporter, std::move(engine_options)).stop();
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    FakeClock clock;
    testing::FakeCluster nodes{plan, clock};
    testing::RecordingReporter reporter;
    std::mutex mutex;
    std::map<std::string, TimePoint> held_until;
    std::set<std::string> without_nvidia_smi;
    std::vector<std::string> asked;
};

TEST_F(GpuReleaseTest, StopEndsOnlyOnceEveryGpuIsReleased) {
    EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter).start(), ExitCode::kOk);
    held_until["n2"] = clock.now() + 5s;
    const auto began = clock.now();
    EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, options()).stop(), ExitCode::kOk);
    EXPECT_GE(clock.now() - began, 5s) << "stop returned while n2's GPUs were still held";
    EXPECT_LT(clock.now() - began, 10s);
    EXPECT_EQ(reporter.summary.message, "stopped");
    bool announced = false;
    for (const auto& event : reporter.events)
        announced = announced || event.find(
                                     "note waiting up to 1m00s for the GPUs to be released: n2: pid 432 "
                                     "python3 19592 MiB") == 0;
    EXPECT_TRUE(announced) << ::testing::PrintToString(reporter.events);
}

TEST_F(GpuReleaseTest, GpusStillHeldAtTheDeadlineGiveExit12NamingTheNodeAndProcess) {
    held_until["n5"] = TimePoint::max();
    EXPECT_EQ(stop(options(20s)), ExitCode::kGpusBusy);
    EXPECT_EQ(reporter.summary.code, ExitCode::kGpusBusy);
    EXPECT_NE(reporter.summary.message.find(
                  "GPU memory is still in use after 20.0s: n5: pid 432 python3 19592 MiB"),
              std::string::npos)
        << reporter.summary.message;
}

TEST_F(GpuReleaseTest, OnlyTheNodesOfSglangUnitsAreAskedAndNodesWithoutNvidiaSmiAreSaidToBeUnchecked) {
    without_nvidia_smi = {"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"};
    EXPECT_EQ(stop(options()), ExitCode::kOk);
    std::set<std::string> distinct(asked.begin(), asked.end());
    EXPECT_EQ(distinct.size(), asked.size()) << "a node without nvidia-smi is asked once";
    bool said = false;
    for (const auto& event : reporter.events)
        said = said || event.find("note GPU release not checked on n1, n2") == 0;
    EXPECT_TRUE(said) << ::testing::PrintToString(reporter.events);
}

TEST_F(GpuReleaseTest, ATimeoutOfZeroDoesNotAsk) {
    held_until["n1"] = TimePoint::max();
    EXPECT_EQ(stop(options(0s)), ExitCode::kOk);
    EXPECT_TRUE(asked.empty());
}

TEST_F(GpuReleaseTest, RestartDoesNotStartWhileGpusAreHeld) {
    EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter).start(), ExitCode::kOk);
    held_until["n3"] = TimePoint::max();
    nodes.events.clear();
    EXPECT_EQ(Engine(plan, nodes.backend, nodes, clock, reporter, options(5s)).restart(),
              ExitCode::kGpusBusy);
    EXPECT_EQ(nodes.count("start "), 0u);
}

}  // namespace
}  // namespace pdctl::engine
