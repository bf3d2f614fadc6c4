// The deploy lock and the journal with the real pdctl on a simulated cluster (127.0.72.x): two starts at
// once, release after success, failure, Ctrl-C and a killed pdctl, `lock status|release`, `history`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <future>

#include "pdctl_harness.hpp"
#include "pdctl_process.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class LockAndHistory : public ::testing::Test {
  protected:
    explicit LockAndHistory(const std::string& cluster_name) : cluster_(cluster_name, 72) {}

    void SetUp() override {
        // This machine's copy of the journal goes to a directory of the test, not the real ~/.local/state.
        state_home_ =
            std::filesystem::temp_directory_path() / ("pdctl-it-state-home-" + std::to_string(::getpid()));
        std::filesystem::remove_all(state_home_);
        ::setenv("XDG_STATE_HOME", state_home_.c_str(), 1);
        original_prefill_ = read_text(cluster_.config().parent_path() / "prefill.env");
    }
    void TearDown() override {
        ::unsetenv("XDG_STATE_HOME");
        std::filesystem::remove_all(state_home_);
    }

    // prefill.env as shipped plus `extra` (rewritten, so a knob is never set twice).
    void prefill_env(const std::string& extra) {
        write_text(cluster_.config().parent_path() / "prefill.env", original_prefill_ + extra);
    }
    json lock_status() {
        const auto run = cluster_.run({"--json", "lock", "status"});
        EXPECT_EQ(run.exit_code, 0) << run.err;
        return json::parse(run.out);
    }
    std::filesystem::path lock_dir() const { return cluster_.state_dir() / "lock"; }

    SimCluster cluster_;
    std::filesystem::path state_home_;
    std::string original_prefill_;
    const std::string who_ = operator_who();
    const std::string secret_ = "hf_LockTestSecret_777";
};

// Starts pdsim processes on 127.0.72.x: the only test of this file that does, so the tests can run in
// parallel (the others only write lock files under their own cluster name).
class LockWithUnits : public LockAndHistory {
  protected:
    LockWithUnits() : LockAndHistory("lockrace") {}
};

class LockFiles : public LockAndHistory {
  protected:
    LockFiles() : LockAndHistory("lockfiles") {}
};

TEST_F(LockWithUnits, TwoStartsAtOnceExactlyOneProceedsAndEveryEndReleasesTheLock) {
    // Prefill loads weights for 6 s, so the first start holds the lock long after the second asks.
    prefill_env("PDSIM_WEIGHTS_MS=6000\nHF_TOKEN=" + secret_ + "\n");
    auto first = std::async(std::launch::async, [&] { return cluster_.run({"--json", "start"}); });
    auto second = std::async(std::launch::async, [&] { return cluster_.run({"--json", "start"}); });
    const auto a = first.get();
    const auto b = second.get();
    const auto& winner = a.exit_code == 0 ? a : b;
    const auto& loser = a.exit_code == 0 ? b : a;
    ASSERT_EQ(winner.exit_code, 0) << a.err << b.err;
    ASSERT_EQ(loser.exit_code, 6) << loser.out << loser.err;
    EXPECT_THAT(loser.err, HasSubstr("pdctl: error: deploy lock held by " + who_ + " (pid "));
    EXPECT_THAT(loser.err, HasSubstr(", start, since "));
    EXPECT_THAT(loser.err, HasSubstr("pdctl lock release --force"));
    EXPECT_TRUE(loser.events().empty()) << "the refused start touched nothing: " << loser.out;
    EXPECT_FALSE(std::filesystem::exists(lock_dir())) << "released after success";
    EXPECT_EQ(lock_status()["state"], "free");

    // A failing start: rank 1 crashes while loading weights. The lock is released after the failure.
    prefill_env("PDSIM_WEIGHTS_MS=6000\nPDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=1\nHF_TOKEN=" + secret_ +
                "\n");
    const auto failed = cluster_.run({"--json", "start"});
    ASSERT_EQ(failed.exit_code, 4) << failed.out << failed.err;
    json stage_failed;
    for (const auto& event : failed.events())
        if (event["event"] == "stage_failed") stage_failed = event;
    ASSERT_FALSE(stage_failed.is_null());
    EXPECT_FALSE(std::filesystem::exists(lock_dir())) << "released after failure";

    // Ctrl-C while prefill loads weights: while it runs, `lock status` names it; afterwards it is gone.
    prefill_env("PDSIM_WEIGHTS_MS=60000\n");
    auto interrupted = std::async(std::launch::async, [&] { return cluster_.run({"--json", "start"}); });
    int pid = 0;
    ASSERT_TRUE(eventually([&] {
        return std::filesystem::exists(cluster_.state_dir() / "n4" / "pd-lockrace-prefill-3.pid") &&
               (pid = find_pdctl_pid(cluster_.config().string(), "start")) != 0;
    })) << "prefill never started";
    const auto held = lock_status();
    EXPECT_EQ(held["state"], "held");
    EXPECT_EQ(held["holder"]["who"], who_);
    EXPECT_EQ(held["holder"]["verb"], "start");
    EXPECT_EQ(held["holder"]["pid"], pid);
    EXPECT_EQ(held["holder"]["running"], true);
    EXPECT_THAT(cluster_.run({"lock", "status"}).out, HasSubstr("deploy lock: held by " + who_));
    ::kill(pid, SIGINT);
    ASSERT_EQ(interrupted.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    EXPECT_EQ(interrupted.get().exit_code, 130);
    EXPECT_EQ(lock_status()["state"], "free") << "released after Ctrl-C";

    // History: newest first, outcomes and where it failed, the refused start absent.
    const auto history = json::parse(cluster_.run({"--json", "history"}).out);
    ASSERT_EQ(history["runs"].size(), 3u) << history.dump(2);
    const auto& newest = history["runs"][0];
    const auto& crashed = history["runs"][1];
    const auto& success = history["runs"][2];
    EXPECT_EQ(newest["result"], "interrupted");
    EXPECT_EQ(newest["exit_code"], 130);
    EXPECT_EQ(crashed["verb"], "start");
    EXPECT_EQ(crashed["who"], who_);
    EXPECT_EQ(crashed["result"], "stage failed");
    EXPECT_EQ(crashed["exit_code"], 4);
    EXPECT_EQ(crashed["failed"]["role"], "prefill");
    EXPECT_EQ(crashed["failed"]["node"], stage_failed["node"]);
    EXPECT_EQ(crashed["failed"]["rank"], stage_failed["rank"]);
    EXPECT_GT(crashed["duration_ms"].get<long long>(), 0);
    EXPECT_EQ(success["result"], "success");
    EXPECT_EQ(success["exit_code"], 0);
    EXPECT_TRUE(success["failed"].is_null());
    EXPECT_GE(success["duration_ms"].get<long long>(), 6000) << "prefill alone loads weights for 6 s";

    const auto text = cluster_.run({"history", "--limit", "2"});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_THAT(text.out, HasSubstr("✗ stage failed"));
    EXPECT_THAT(text.out, HasSubstr("prefill " + stage_failed["node"].get<std::string>()));
    EXPECT_EQ(text.out.find("✓ success"), std::string::npos) << "--limit 2 leaves the oldest run out";

    // The coordinator's journal and this machine's copy hold the same lines, and never a secret.
    const auto journal = read_text(cluster_.state_dir() / "journal.jsonl");
    EXPECT_EQ(read_text(state_home_ / "pdctl" / "lockrace.jsonl"), journal);
    EXPECT_EQ(journal.find(secret_), std::string::npos);
}

// A pid that existed a moment ago and is gone now: what a pdctl killed outright leaves in its lock.
int dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return static_cast<int>(child);
}

TEST_F(LockFiles, AStaleLockIsShownAsStaleAndNeedsItsOwnerOrForce) {
    const std::string user = who_.substr(0, who_.find('@'));
    const std::string host = who_.substr(who_.find('@') + 1);
    const auto my_lock = [&](int pid) {
        std::filesystem::create_directories(lock_dir());
        write_text(lock_dir() / "holder",
                   "user=" + user + "\nhost=" + host + "\npid=" + std::to_string(pid) +
                       "\nsince=2026-11-29T08:12:03Z\nsince_epoch=1795939923\nverb=start\n"
                       "version=0.1.0\ntoken=my-run\n");
    };
    // Mine, and its pdctl (this test process stands in for it) still runs: even its owner needs --force.
    my_lock(static_cast<int>(::getpid()));
    EXPECT_EQ(lock_status()["state"], "held");
    const auto running = cluster_.run({"lock", "release"});
    EXPECT_EQ(running.exit_code, 6);
    EXPECT_THAT(running.err, HasSubstr("its pdctl is still running on this machine"));

    const int pid = dead_pid();
    my_lock(pid);

    const auto status = lock_status();
    EXPECT_EQ(status["state"], "stale");
    EXPECT_EQ(status["holder"]["running"], false);
    EXPECT_THAT(cluster_.run({"lock", "status"}).out, HasSubstr("STALE"));
    const auto refused = cluster_.run({"start"});
    EXPECT_EQ(refused.exit_code, 6);
    EXPECT_THAT(refused.err, HasSubstr("STALE: pid " + std::to_string(pid) + " no longer runs on " + host));
    EXPECT_THAT(refused.err, HasSubstr("hint: its pdctl is gone, but pdctl never breaks a lock by itself"));
    EXPECT_THAT(refused.err, HasSubstr("pdctl lock release --force"));
    EXPECT_TRUE(std::filesystem::exists(lock_dir())) << "a stale lock is never broken automatically";
    const auto mine = cluster_.run({"lock", "release"});
    EXPECT_EQ(mine.exit_code, 0) << mine.err;
    EXPECT_THAT(mine.out, HasSubstr("deploy lock released (it was yours: " + who_));
    EXPECT_FALSE(std::filesystem::exists(lock_dir()));
}

TEST_F(LockFiles, AnotherOperatorsLockRefusesEveryMutatingVerbUntilForced) {
    std::filesystem::create_directories(lock_dir());
    write_text(
        lock_dir() / "holder",
        "user=someone-else\nhost=elsewhere\npid=4242\nsince=2026-11-29T08:12:03Z\nsince_epoch=1795939923\n"
        "verb=restart\nversion=0.1.0\ntoken=foreign-run\n");
    const auto not_mine = cluster_.run({"lock", "release"});
    EXPECT_EQ(not_mine.exit_code, 6);
    EXPECT_THAT(not_mine.err, HasSubstr("only someone-else@elsewhere may release it without --force"));
    for (const std::string verb : {"start", "stop", "restart"}) {
        const auto refused = cluster_.run({verb});
        EXPECT_EQ(refused.exit_code, 6) << verb;
        EXPECT_THAT(refused.err,
                    HasSubstr("deploy lock held by someone-else@elsewhere (pid 4242, restart, since "
                              "2026-11-29T08:12:03Z"))
            << verb;
    }
    // The cache verbs that change the nodes take the lock as well.
    for (const auto& cache_verb :
         {std::vector<std::string>{"cache", "clear"}, std::vector<std::string>{"cache", "spread"}}) {
        const auto refused = cluster_.run(cache_verb);
        EXPECT_EQ(refused.exit_code, 6) << cache_verb[1] << ": " << refused.err;
        EXPECT_THAT(refused.err, HasSubstr("deploy lock held by someone-else@elsewhere")) << cache_verb[1];
    }
    EXPECT_EQ(lock_status()["holder"]["running"], nullptr) << "another host: pdctl cannot tell";

    const auto forced = cluster_.run({"lock", "release", "--force"});
    EXPECT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_THAT(forced.out,
                HasSubstr("broke the deploy lock held by someone-else@elsewhere (pid 4242, restart"));
    EXPECT_EQ(lock_status()["state"], "free");
    EXPECT_EQ(cluster_.run({"lock", "release"}).out,
              "deploy lock: already free (n1:" + lock_dir().string() + ")\n");

    // Breaking a lock is journaled; stop now proceeds and is journaled too.
    EXPECT_EQ(cluster_.run({"stop"}).exit_code, 0);
    const auto history = json::parse(cluster_.run({"--json", "history"}).out);
    ASSERT_EQ(history["runs"].size(), 2u) << history.dump(2);
    EXPECT_EQ(history["runs"][0]["verb"], "stop");
    EXPECT_EQ(history["runs"][0]["result"], "success");
    EXPECT_EQ(history["runs"][1]["verb"], "lock release --force");
    EXPECT_EQ(history["runs"][1]["who"], who_);
    EXPECT_THAT(history["runs"][1]["message"].get<std::string>(), HasSubstr("someone-else@elsewhere"));
}

}  // namespace
}  // namespace pdctl::testing
