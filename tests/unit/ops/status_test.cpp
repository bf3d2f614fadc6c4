// `pdctl status` on fakes: what it reports, and with which exit code, for a cluster running, stopped,
// with a group stopped on purpose (`stopped*`), with a rank that failed, and with a node that does not
// answer; read through the deployment's executor and prober as the command line reads it.
#include "pdctl/ops/status.hpp"

#include <gtest/gtest.h>

#include "pdctl/state/intent.hpp"
#include "unit/support/fake_deployment.hpp"

namespace pdctl::ops {
namespace {

const engine::RoleStatus& role_of(const engine::ClusterStatus& status, const std::string& name) {
    for (const auto& role : status.roles)
        if (role.role == name) return role;
    throw std::runtime_error("no role " + name);
}

const engine::UnitStatus& unit_of(const engine::ClusterStatus& status, const std::string& name) {
    for (const auto& role : status.roles)
        for (const auto& unit : role.units)
            if (unit.unit == name) return unit;
    throw std::runtime_error("no unit " + name);
}

class StatusTest : public ::testing::Test {
  protected:
    engine::ClusterStatus status() { return read_status(fake.deployment, {}, {.probe = true}); }

    testing::FakeDeployment fake;
};

TEST_F(StatusTest, EveryUnitRunningAndEveryGatePassingIsRunning) {
    fake.run_everything();
    const auto seen = status();
    EXPECT_EQ(seen.state, "running");
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kOk);
    for (const auto& role : seen.roles) {
        EXPECT_TRUE(role.ready) << role.role << ": " << role.gate_answer;
        EXPECT_TRUE(role.stopped_on_purpose.empty());
        for (const auto& unit : role.units) EXPECT_EQ(unit.state, "running") << unit.unit;
    }
    EXPECT_EQ(fake.nodes.count("inspect "), 8u) << "each node listed once";
}

TEST_F(StatusTest, NothingRunningIsStopped) {
    const auto seen = status();
    EXPECT_EQ(seen.state, "stopped");
    for (const auto& role : seen.roles) {
        EXPECT_FALSE(role.ready);
        for (const auto& unit : role.units) EXPECT_EQ(unit.state, "absent") << unit.unit;
    }
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kStopped);
}

// A group an operator stopped (`pdctl stop --group decode`) is `stopped*`: who stopped it and how to
// bring it back, and the rest running as configured is `running`, exit 0.
TEST_F(StatusTest, AGroupStoppedOnPurposeSaysWhoAndHowAndDoesNotCountAgainstTheCluster) {
    fake.run_everything();
    fake.stop_decode_on_purpose();

    const auto seen = status();
    const auto& decode = role_of(seen, "decode");
    EXPECT_EQ(decode.stopped_on_purpose, "by alice@h1 at 2026-12-06T10:00:00Z (pdctl stop --group decode)");
    EXPECT_EQ(decode.bring_back, "pdctl start --group decode");
    EXPECT_TRUE(role_of(seen, "prefill").stopped_on_purpose.empty());
    EXPECT_EQ(seen.state, "running");
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kOk);

    // The same absence without the operators' record is not on purpose: degraded.
    fake.nodes.intent.clear();
    const auto unexplained = status();
    EXPECT_TRUE(role_of(unexplained, "decode").stopped_on_purpose.empty());
    EXPECT_EQ(unexplained.state, "degraded");
    EXPECT_EQ(engine::status_exit_code(unexplained), ExitCode::kDegraded);
}

TEST_F(StatusTest, EveryGroupStoppedOnPurposeIsStopped) {
    state::intent::Intent intent;
    for (const auto& stage : fake.deployment.plan.stages)
        intent.stopped[stage.role] = {
            {"alice@h1", "2026-12-06T10:00:00Z", 1, "run-1"}, "pdctl stop", "pdctl start"};
    fake.nodes.intent = state::intent::to_text(intent);
    const auto seen = status();
    EXPECT_EQ(seen.state, "stopped");
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kStopped);
    for (const auto& role : seen.roles) EXPECT_FALSE(role.stopped_on_purpose.empty()) << role.role;
}

// A rank that died: exited with its code, its group not ready, the cluster degraded.
TEST_F(StatusTest, AFailedRankIsExitedWithItsCodeAndTheClusterIsDegraded) {
    fake.run_everything();
    fake.nodes.crash_now("pd-demo-prefill-2", "137");
    const auto seen = status();
    const auto& rank = unit_of(seen, "pd-demo-prefill-2");
    EXPECT_EQ(rank.state, "exited");
    EXPECT_EQ(rank.exit_code, "137");
    EXPECT_EQ(rank.node, "n3");
    EXPECT_EQ(unit_of(seen, "pd-demo-prefill-1").state, "running");
    EXPECT_EQ(seen.state, "degraded");
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kDegraded);
}

TEST_F(StatusTest, ANodeThatDoesNotAnswerIsNamedAndItsUnitsAreUnknown) {
    fake.run_everything();
    fake.nodes.unreachable_nodes.insert("n6");
    const auto seen = status();
    ASSERT_EQ(seen.unreachable.count("n6"), 1u);
    EXPECT_NE(seen.unreachable.at("n6").find("timed out"), std::string::npos);
    EXPECT_EQ(unit_of(seen, "pd-demo-decode-1").state, "unknown");
    EXPECT_EQ(unit_of(seen, "pd-demo-decode-0").state, "running");
    EXPECT_EQ(seen.state, "degraded");
    EXPECT_EQ(engine::status_exit_code(seen), ExitCode::kDegraded);
}

}  // namespace
}  // namespace pdctl::ops
