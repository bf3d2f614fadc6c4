// Without the coordinator: the deploy lock of a stop goes on unlocked (every other verb refuses), and
// journal records wait on this machine until the coordinator answers, then reach it first, in order.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/local_executor.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/util/exit_code.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::state {
namespace {

// The coordinator's commands run for real in the sandbox, unless its link is "down".
class SwitchableCoordinator : public exec::LocalExecutor {
  public:
    bool down = false;
    exec::CommandResult run(const config::Node& node, const exec::Command& command) override {
        if (down) {
            exec::CommandResult result;
            result.transport_error = "connect timed out after 10 s (host down or port filtered?)";
            return result;
        }
        return LocalExecutor::run(node, command);
    }
};

class CoordinatorDown : public ::testing::Test {
  protected:
    void SetUp() override {
        cluster.name = "kimi3";
        cluster.state_dir = (sandbox.dir() / "state").string();
        cluster.nodes = {{"n1", "10.0.0.1", {}, {}, {}}};
        ::setenv("XDG_STATE_HOME", (sandbox.dir() / "xdg").c_str(), 1);
    }
    void TearDown() override { ::unsetenv("XDG_STATE_HOME"); }

    std::string coordinator_journal() const {
        return sandbox.read(
            journal::journal_path(config::cluster_state_dir(cluster.state_dir, cluster.name)));
    }

    testing::ScriptSandbox sandbox{"coordinator-down"};
    config::Cluster cluster;
    SwitchableCoordinator executor;
    OperatorIdentity me{"alice", "jump1", 4242, 1};
};

TEST_F(CoordinatorDown, OnlyAStopGoesOnWithoutTheLockAndSaysWhy) {
    executor.down = true;
    try {
        DeployLock refused(executor, cluster, me, "start", "t1");
        ADD_FAILURE() << "a start took no lock and went on";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUnreachable);
    }
    DeployLock unlocked(executor, cluster, me, "stop", "t2", WhenCoordinatorUnreachable::kGoOnUnlocked);
    EXPECT_FALSE(unlocked.held());
    EXPECT_EQ(unlocked.why_not_held(),
              "n1 (10.0.0.1), the coordinator, is unreachable: connect timed out after 10 s (host down or "
              "port filtered?)");
    // Once it answers, the same policy takes the lock as always.
    executor.down = false;
    DeployLock locked(executor, cluster, me, "stop", "t3", WhenCoordinatorUnreachable::kGoOnUnlocked);
    EXPECT_TRUE(locked.held());
    EXPECT_TRUE(locked.why_not_held().empty());
}

TEST_F(CoordinatorDown, RecordsWaitOnThisMachineAndReachTheCoordinatorFirstWhenItAnswers) {
    executor.down = true;
    write_journal(executor, cluster, "{\"run\":\"r1\"}\n");
    EXPECT_EQ(pending_journal(cluster.name), "{\"run\":\"r1\"}\n");
    EXPECT_EQ(sandbox.read(local_journal_path(cluster.name)), "{\"run\":\"r1\"}\n")
        << "the local copy as always";
    write_journal(executor, cluster, "{\"run\":\"r2\"}\n");
    EXPECT_EQ(pending_journal(cluster.name), "{\"run\":\"r1\"}\n{\"run\":\"r2\"}\n");

    executor.down = false;
    write_journal(executor, cluster, "{\"run\":\"r3\"}\n");
    EXPECT_EQ(coordinator_journal(), "{\"run\":\"r1\"}\n{\"run\":\"r2\"}\n{\"run\":\"r3\"}\n");
    EXPECT_EQ(pending_journal(cluster.name), "");
    EXPECT_FALSE(std::filesystem::exists(pending_journal_path(cluster.name)));
}

}  // namespace
}  // namespace pdctl::state
