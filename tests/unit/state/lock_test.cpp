// The deploy lock's command builders and parsers, and its scripts run for real in a temporary directory.
#include "pdctl/state/lock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "pdctl/state/coordinator.hpp"
#include "pdctl/util/exit_code.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::state::lock {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Holder holder(const std::string& user, const std::string& token) {
    Holder h;
    h.user = user;
    h.host = "jump1";
    h.pid = 4242;
    h.pid_start = 987654;
    h.since = "2026-11-29T08:12:03Z";
    h.since_epoch = 1795939923;
    h.verb = "start";
    h.version = "0.1.0";
    h.token = token;
    return h;
}

TEST(LockHolder, RoundTripsThroughItsFile) {
    const auto original = holder("alice", "20261129T081203Z-00abcd");
    const auto parsed = parse_holder(holder_text(original));
    EXPECT_EQ(parsed.user, "alice");
    EXPECT_EQ(parsed.host, "jump1");
    EXPECT_EQ(parsed.pid, 4242);
    EXPECT_EQ(parsed.pid_start, 987654);
    EXPECT_EQ(parsed.since, "2026-11-29T08:12:03Z");
    EXPECT_EQ(parsed.since_epoch, 1795939923);
    EXPECT_EQ(parsed.verb, "start");
    EXPECT_EQ(parsed.version, "0.1.0");
    EXPECT_EQ(parsed.token, "20261129T081203Z-00abcd");
    EXPECT_EQ(parsed.who(), "alice@jump1");
}

TEST(LockHolder, ANewlineInAValueCannotForgeAnotherKey) {
    auto forged = holder("mallory\ntoken=stolen", "real-token");
    const auto parsed = parse_holder(holder_text(forged));
    EXPECT_EQ(parsed.token, "real-token");
    EXPECT_EQ(parsed.user, "mallory token=stolen");
}

TEST(LockHolder, DamagedNumbersAndUnknownKeysDoNotHideTheHolder) {
    const auto parsed = parse_holder("user=bob\nhost=h2\npid=12x\nfuture_key=1\nnot a key value line\n");
    EXPECT_EQ(parsed.who(), "bob@h2");
    EXPECT_EQ(parsed.pid, 0);
}

TEST(LockCommands, ValuesArePositionalParametersAndTheHolderGoesOnStdin) {
    const std::string dir = "/var/lib/pdctl/kimi3/lock";
    const auto acquire = acquire_command(dir, holder("alice", "t1"));
    ASSERT_EQ(acquire.argv.size(), 5u);
    EXPECT_EQ(acquire.argv[0], "sh");
    EXPECT_EQ(acquire.argv[1], "-c");
    EXPECT_EQ(acquire.argv[3], "pdctl-lock-acquire");
    EXPECT_EQ(acquire.argv[4], dir);
    EXPECT_THAT(acquire.argv[2], Not(HasSubstr("alice"))) << "the script is fixed text";
    EXPECT_THAT(acquire.stdin_data, HasSubstr("user=alice\n"));

    const auto release = release_command(dir, "t1");
    EXPECT_EQ(release.argv,
              (std::vector<std::string>{"sh", "-c", release.argv[2], "pdctl-lock-release", dir, "t1"}));
    const auto status = status_command(dir);
    EXPECT_EQ(status.argv, (std::vector<std::string>{"sh", "-c", status.argv[2], "pdctl-lock-status", dir}));
    EXPECT_EQ(lock_path("/var/lib/pdctl/kimi3"), dir);
}

TEST(LockScripts, FirstTakesItSecondIsToldWhoHoldsIt) {
    testing::ScriptSandbox sandbox("lock-basic");
    const std::string dir = lock_path((sandbox.dir() / "state" / "kimi3").string());

    EXPECT_EQ(parse_status(sandbox.run(status_command(dir))).state, State::kFree);
    const auto first = parse_acquire(sandbox.run(acquire_command(dir, holder("alice", "t-alice"))));
    EXPECT_TRUE(first.acquired);

    const auto second = parse_acquire(sandbox.run(acquire_command(dir, holder("bob", "t-bob"))));
    EXPECT_FALSE(second.acquired);
    EXPECT_EQ(second.current.state, State::kHeld);
    EXPECT_EQ(second.current.holder.who(), "alice@jump1");
    EXPECT_EQ(second.current.holder.token, "t-alice");

    const auto status = parse_status(sandbox.run(status_command(dir)));
    EXPECT_EQ(status.state, State::kHeld);
    EXPECT_EQ(status.holder.user, "alice");
}

TEST(LockScripts, ReleaseRemovesOnlyTheLockItWasGivenTheTokenOf) {
    testing::ScriptSandbox sandbox("lock-release");
    const std::string dir = lock_path(sandbox.dir().string() + "/kimi3");
    ASSERT_TRUE(parse_acquire(sandbox.run(acquire_command(dir, holder("alice", "t-alice")))).acquired);

    const auto wrong = parse_release(sandbox.run(release_command(dir, "t-bob")));
    EXPECT_EQ(wrong.outcome, ReleaseOutcome::kChangedHands);
    EXPECT_EQ(wrong.current.who(), "alice@jump1");
    EXPECT_EQ(parse_status(sandbox.run(status_command(dir))).state, State::kHeld);

    EXPECT_EQ(parse_release(sandbox.run(release_command(dir, "t-alice"))).outcome, ReleaseOutcome::kReleased);
    EXPECT_EQ(parse_status(sandbox.run(status_command(dir))).state, State::kFree);
    EXPECT_FALSE(std::filesystem::exists(dir));
    EXPECT_EQ(parse_release(sandbox.run(release_command(dir, "t-alice"))).outcome,
              ReleaseOutcome::kAlreadyFree);
    EXPECT_TRUE(parse_acquire(sandbox.run(acquire_command(dir, holder("bob", "t-bob")))).acquired)
        << "free again after release";
}

TEST(LockScripts, ADirectoryWithoutHolderIsIncompleteAndOnlyAnEmptyTokenRemovesIt) {
    testing::ScriptSandbox sandbox("lock-incomplete");
    const std::string dir = lock_path(sandbox.dir().string());
    std::filesystem::create_directories(dir);  // a run that died between its mkdir and its holder file

    EXPECT_EQ(parse_status(sandbox.run(status_command(dir))).state, State::kIncomplete);
    const auto taken = parse_acquire(sandbox.run(acquire_command(dir, holder("bob", "t-bob"))));
    EXPECT_FALSE(taken.acquired);
    EXPECT_EQ(taken.current.state, State::kIncomplete);
    EXPECT_EQ(parse_release(sandbox.run(release_command(dir, "t-bob"))).outcome,
              ReleaseOutcome::kChangedHands);
    EXPECT_EQ(parse_release(sandbox.run(release_command(dir, ""))).outcome, ReleaseOutcome::kReleased);
    EXPECT_EQ(parse_status(sandbox.run(status_command(dir))).state, State::kFree);
}

TEST(LockScripts, ExactlyOneOfManySimultaneousOperatorsGetsIt) {
    testing::ScriptSandbox sandbox("lock-race");
    const std::string dir = lock_path(sandbox.dir().string() + "/race");
    constexpr int kOperators = 8;
    std::atomic<int> winners{0};
    std::atomic<int> told_holder{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kOperators; ++i) {
        threads.emplace_back([&, i] {
            const auto result = parse_acquire(
                sandbox.run(acquire_command(dir, holder("op" + std::to_string(i), std::to_string(i)))));
            if (result.acquired)
                ++winners;
            else if (result.current.state == State::kHeld && !result.current.holder.user.empty())
                ++told_holder;
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(winners.load(), 1);
    EXPECT_EQ(told_holder.load(), kOperators - 1) << "every loser learns who won";
}

TEST(LockScripts, AStateDirThatCannotBeCreatedIsAnErrorNotALock) {
    testing::ScriptSandbox sandbox("lock-error");
    sandbox.write(sandbox.dir() / "file", "not a directory");
    const auto answer =
        sandbox.run(acquire_command((sandbox.dir() / "file" / "lock").string(), holder("a", "t")));
    try {
        parse_acquire(answer);
        FAIL() << "expected a Failure";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kInternal);
        EXPECT_THAT(failure.what(), HasSubstr("cannot take the deploy lock"));
    }
}

TEST(LockParse, TransportErrorsAreUnreachable) {
    exec::CommandResult answer;
    answer.transport_error = "connection refused";
    try {
        parse_acquire(answer);
        FAIL() << "expected a Failure";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUnreachable);
    }
}

TEST(LockMessages, NameTheHolderAndSayWhatToDo) {
    Observed held{State::kHeld, holder("alice", "t")};
    const auto message =
        locked_message(held, Liveness::kAlive, "n1:/var/lib/pdctl/kimi3/lock", 1795939923 + 42);
    EXPECT_EQ(message,
              "deploy lock held by alice@jump1 (pid 4242, start, since 2026-11-29T08:12:03Z, 42s ago) at "
              "n1:/var/lib/pdctl/kimi3/lock");
    EXPECT_THAT(locked_hint(held, Liveness::kUnknown), HasSubstr("pdctl lock status"));
    EXPECT_THAT(locked_hint(held, Liveness::kUnknown), HasSubstr("pdctl lock release --force"));

    const auto stale = locked_message(held, Liveness::kDead, "n1:/x/lock", 0);
    EXPECT_THAT(stale, HasSubstr("STALE: pid 4242 no longer runs on jump1"));
    EXPECT_THAT(locked_hint(held, Liveness::kDead), HasSubstr("never breaks a lock by itself"));
    EXPECT_THAT(locked_hint(held, Liveness::kDead), HasSubstr("--force"));

    Observed incomplete{State::kIncomplete, {}};
    EXPECT_THAT(locked_message(incomplete, Liveness::kUnknown, "n1:/x/lock", 0),
                HasSubstr("names no holder"));
    EXPECT_THAT(describe_holder(holder("a", "t"), 1795939923 + 3 * 3600 + 5 * 60), HasSubstr("3h05m ago"));
}

TEST(LockRelease, WithoutForceOnlyTheSameUserAtTheSameHost) {
    const auto alice = holder("alice", "t");
    EXPECT_TRUE(may_release_without_force(alice, "alice", "jump1"));
    EXPECT_FALSE(may_release_without_force(alice, "alice", "jump2"));
    EXPECT_FALSE(may_release_without_force(alice, "bob", "jump1"));
    EXPECT_FALSE(may_release_without_force(Holder{}, "", ""));
}

TEST(Coordinator, DefaultsToTheFirstNode) {
    config::Cluster cluster;
    cluster.nodes = {{"n1", "10.0.0.1", {}, {}, {}}, {"n2", "10.0.0.2", {}, {}, {}}};
    EXPECT_EQ(coordinator_node(cluster).name, "n1");
    cluster.coordinator = "n2";
    EXPECT_EQ(coordinator_node(cluster).name, "n2");
    cluster.coordinator = "n9";
    EXPECT_THROW(coordinator_node(cluster), Failure);
}

}  // namespace
}  // namespace pdctl::state::lock
