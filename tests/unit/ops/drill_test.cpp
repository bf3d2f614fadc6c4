// `pdctl drill` on fakes: the fault sent to the node, then detect and recover timed on the deployment's
// fake clock (the gates polled every poll_interval), the load's failures placed relative to the fault,
// and what ends a drill before its fault.
#include "pdctl/ops/drill.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "unit/support/fake_deployment.hpp"
#include "unit/support/recording_reporter.hpp"

namespace pdctl::ops {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTarget = "pd-demo-decode-0";  // the default: the last decode group, rank 0

load::RequestRecord request(double sent_s, double e2e_s, std::string error = "") {
    load::RequestRecord record;
    record.sent_s = sent_s;
    record.e2e_s = e2e_s;
    record.error = std::move(error);
    return record;
}

class DrillTest : public ::testing::Test {
  protected:
    DrillTest() {
        auto cluster = testing::sample_cluster();
        cluster.drills_allowed = true;
        fake = std::make_unique<testing::FakeDeployment>(cluster);
        fake->run_everything();
    }
    void SetUp() override { engine::interrupt_signal() = 0; }
    void TearDown() override { engine::interrupt_signal() = 0; }

    // The fault, when the node receives it: the target goes down `down_after` later, and (if set) comes
    // back `back_after` after the fault by itself.
    void on_fault(engine::Duration down_after, std::optional<engine::Duration> back_after = std::nullopt) {
        fake->nodes.on_command = [this, down_after, back_after](
                                     const config::Node& node,
                                     const exec::Command& command) -> std::optional<exec::CommandResult> {
            if (command.argv.at(0) != "kill") return std::nullopt;
            exec::CommandResult result;
            result.exit_code = 0;
            faults.push_back(node.name + ":" + command.argv.at(0) + " " + command.argv.at(2) + " " +
                             command.argv.back());
            fault_at = fake->clock.now();
            fake->nodes.crash_at(kTarget, fault_at + down_after);
            if (back_after) fake->nodes.recover_at(kTarget, fault_at + *back_after);
            return result;
        };
    }

    DrillResult drill(const DrillRequest& request) {
        return run_drill(fake->deployment, request, screen, [this](const load::LoadSpec& spec) {
            ++loads;
            load_url = spec.url;
            load::LoadResult result;
            result.records = records;
            return result;
        });
    }

    std::unique_ptr<testing::FakeDeployment> fake;
    testing::RecordingReporter screen;
    std::vector<std::string> faults;
    engine::TimePoint fault_at{};
    std::vector<load::RequestRecord> records;
    std::atomic<int> loads{0};
    std::string load_url;
};

// Down 1 s after the fault, back by itself 10 s after it: with the gates polled every 250 ms, the
// drill sees the fault at 1000 ms and the recovery at 10000 ms, to the millisecond, and the whole
// drill took the 3 s warm-up and those 10 s. The load's failed requests are placed by when they ended,
// from the fault: one sent 3.2 s into the load (0.2 s after the fault) that ended 0.8 s later failed
// at +1.0 s; one sent at 9 s that took 3.5 s at +9.5 s.
TEST_F(DrillTest, DetectAndRecoverAreTimedFromTheFaultOnTheClock) {
    on_fault(1s, 10s);
    records = {request(1.0, 0.5), request(3.2, 0.8, "HTTP 502"), request(9.0, 3.5, "HTTP 502")};
    DrillRequest request;
    request.heal = false;
    const auto began = fake->clock.now();
    const auto result = drill(request);

    EXPECT_EQ(faults, std::vector<std::string>{"n5:kill KILL -100"});
    EXPECT_EQ(fault_at - began, 3s) << "the fault comes after the warm-up";
    EXPECT_EQ(result.target, "decode rank 0 on n5 (pid 100)");
    EXPECT_EQ(result.detect_ms, 1000);
    EXPECT_EQ(result.recover_ms, 10000);
    EXPECT_EQ(result.recovered_by, "itself");
    EXPECT_FALSE(result.needed_person());
    EXPECT_EQ(result.code, ExitCode::kOk);
    EXPECT_EQ(result.heal_passes, 0);
    EXPECT_DOUBLE_EQ(result.elapsed_s, 13.0);

    EXPECT_EQ(loads, 1);
    EXPECT_EQ(load_url, "http://10.0.0.5:31000/generate");
    EXPECT_EQ(result.sent, 3);
    EXPECT_EQ(result.failed, 2);
    EXPECT_NEAR(result.first_failure_s, 1.0, 1e-9);
    EXPECT_NEAR(result.last_failure_s, 9.5, 1e-9);
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors.front(), (std::pair<std::string, int>{"HTTP 502", 2}));

    // The drill is journaled with what it measured.
    EXPECT_NE(fake->nodes.journal.find("detected after 1000 ms; recovered after 10000 ms by itself"),
              std::string::npos)
        << fake->nodes.journal;
}

// Detection rounds up to the next poll: a rank down 1.1 s after the fault is seen at 1250 ms.
TEST_F(DrillTest, DetectionIsAtThePollThatFirstSeesTheFault) {
    on_fault(1100ms, 2s);
    DrillRequest request;
    request.heal = false;
    const auto result = drill(request);
    EXPECT_EQ(result.detect_ms, 1250);
    EXPECT_EQ(result.recover_ms, 2000);
}

// With heal (the default): the rank stays down until a heal pass restarts its group; recovered is when
// the status after that pass reads all ready, and the drill's whole time is its warm-up and that.
TEST_F(DrillTest, AHealPassRecoversWhatStaysDownAndTheRecoveryIncludesTheRestart) {
    on_fault(0ms);
    const auto result = drill(DrillRequest{});
    EXPECT_EQ(result.detect_ms, 0);
    EXPECT_EQ(result.recovered_by, "heal");
    EXPECT_EQ(result.heal_passes, 1);
    ASSERT_EQ(result.heal_actions.size(), 1u);
    EXPECT_EQ(result.heal_actions.front().rfind("restart decode", 0), 0u) << result.heal_actions.front();
    // The restarted group's gate passes 5 s after its start.
    EXPECT_GE(result.recover_ms, 5000);
    EXPECT_EQ(result.recover_ms, static_cast<long long>(result.elapsed_s * 1000) - 3000);
    EXPECT_LT(fake->nodes.index_of("command kill on n5"), fake->nodes.index_of("start pd-demo-decode-0"));
    EXPECT_TRUE(fake->nodes.is_running(kTarget));
    EXPECT_EQ(result.code, ExitCode::kOk);
}

// Without heal and without recovery: the drill ends at its deadline, measured from the fault.
TEST_F(DrillTest, NotRecoveredWithinTheDeadlineNeedsAPerson) {
    on_fault(500ms);
    DrillRequest request;
    request.heal = false;
    request.deadline = 2s;
    const auto result = drill(request);
    EXPECT_EQ(result.detect_ms, 500);
    EXPECT_EQ(result.recover_ms, -1);
    EXPECT_TRUE(result.needed_person());
    EXPECT_EQ(result.recovered_by, "");
    EXPECT_EQ(result.code, ExitCode::kGateTimeout);
    EXPECT_DOUBLE_EQ(result.elapsed_s, 5.0);
    EXPECT_EQ(fake->nodes.count("start "), 0u);
}

TEST_F(DrillTest, ADeploymentThatDoesNotAllowDrillsIsNotTouched) {
    testing::FakeDeployment refused;  // the sample cluster says nothing of drills
    refused.run_everything();
    on_fault(0ms);
    try {
        run_drill(refused.deployment, {}, screen, [this](const load::LoadSpec&) {
            ++loads;
            return load::LoadResult{};
        });
        FAIL() << "a drill ran on a cluster that does not allow drills";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
    }
    EXPECT_EQ(loads, 0);
    EXPECT_TRUE(refused.nodes.events.empty()) << "not even a status was read";
}

TEST_F(DrillTest, ADeploymentNotAllReadyBeforeTheFaultIsNotDrilled) {
    on_fault(0ms);
    fake->nodes.crash_now("pd-demo-prefill-2");
    try {
        drill({});
        FAIL() << "a drill started on a degraded deployment";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kDegraded);
    }
    EXPECT_TRUE(faults.empty());
    EXPECT_EQ(loads, 0);
}

}  // namespace
}  // namespace pdctl::ops
