// `pdctl heal` as the command line runs it, on fakes: the decisions (ops/heal_plan.hpp, tested on its
// own) carried out against a FakeCluster on a fake clock: what is restarted, in which order, under
// which lock and journal record; what is left alone; and --watch's passes, on the deployment's clock.
#include "pdctl/ops/heal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

#include "unit/support/fake_deployment.hpp"
#include "unit/support/recording_reporter.hpp"

namespace pdctl::ops {
namespace {

using namespace std::chrono_literals;

class HealTest : public ::testing::Test {
  protected:
    void SetUp() override {
        engine::interrupt_signal() = 0;
        fake.run_everything();
    }
    void TearDown() override { engine::interrupt_signal() = 0; }

    HealReport pass(HealRequest request = {}) { return run_heal_pass(fake.deployment, request, screen); }
    int event(const std::string& name) const { return fake.nodes.index_of(name); }
    // The index of the first `name` after index `from`, or -1. The pass's look at the cluster probes
    // every group's gate in parallel, so a "ready" before the restart can come in either order.
    int event_after(const std::string& name, int from) const {
        const auto& events = fake.nodes.events;
        for (auto i = static_cast<std::size_t>(std::max(from + 1, 0)); i < events.size(); ++i)
            if (events[i] == name) return static_cast<int>(i);
        return -1;
    }
    // The index of the last event that starts with `prefix`, or -1.
    int last_event(const std::string& prefix) const {
        const auto& events = fake.nodes.events;
        for (int i = static_cast<int>(events.size()) - 1; i >= 0; --i)
            if (events[static_cast<std::size_t>(i)].rfind(prefix, 0) == 0) return i;
        return -1;
    }

    testing::FakeDeployment fake;
    testing::RecordingReporter screen;
};

TEST_F(HealTest, AHealthyClusterIsLookedAtAndNothingIsTouched) {
    const auto report = pass();
    EXPECT_EQ(report.code, ExitCode::kOk);
    EXPECT_TRUE(report.steps.empty());
    EXPECT_EQ(fake.nodes.count("start "), 0u);
    EXPECT_EQ(fake.nodes.count("stop "), 0u);
    // Only the look at the lock (taken and given back at once): no run was journaled.
    EXPECT_EQ(fake.nodes.count("lock heal"), 1u);
    EXPECT_EQ(fake.nodes.count("journal"), 0u);
    EXPECT_TRUE(fake.nodes.lock_holder.empty());
}

// A crashed prefill rank: its group is restarted with the decode that must reconnect to it, as one
// journaled run under the lock: the decode stopped before the prefill, the prefill started first and
// ready before the decode starts, the journal record written before the lock is given back.
TEST_F(HealTest, ACrashedPrefillIsRestartedWithItsDecodeInDependencyOrderUnderTheLock) {
    fake.nodes.crash_now("pd-demo-prefill-1");
    const auto report = pass();
    ASSERT_EQ(report.steps.size(), 1u);
    const auto& step = report.steps.front();
    EXPECT_EQ(step.action.kind, HealKind::kRestart);
    EXPECT_EQ(step.action.stage, "prefill");
    EXPECT_EQ(step.action.along, std::vector<std::string>{"decode"});
    EXPECT_EQ(step.code, ExitCode::kOk);
    EXPECT_EQ(report.code, ExitCode::kOk);
    EXPECT_EQ(step.outcome.rfind("healed in ", 0), 0u) << step.outcome;

    // The second "lock heal" is the restart's own run (the first is the look at the lock).
    int locked = -1;
    for (std::size_t i = 0, seen = 0; i < fake.nodes.events.size(); ++i)
        if (fake.nodes.events[i] == "lock heal" && ++seen == 2) locked = static_cast<int>(i);
    ASSERT_GE(locked, 0);
    const int prefill_ready = event_after("ready prefill", event("start pd-demo-prefill-0"));
    const int decode_ready = event_after("ready decode", event("start pd-demo-decode-0"));
    ASSERT_GE(prefill_ready, 0);
    ASSERT_GE(decode_ready, 0);
    for (int rank = 0; rank < 4; ++rank) {
        const auto prefill = "pd-demo-prefill-" + std::to_string(rank);
        const auto decode = "pd-demo-decode-" + std::to_string(rank);
        EXPECT_GT(event("stop " + decode), locked) << decode;
        EXPECT_LT(event("stop " + decode), event("stop pd-demo-prefill-0")) << "decodes go first";
        EXPECT_GT(event("start " + prefill), event("stop " + prefill));
        EXPECT_GT(event("start " + decode), prefill_ready) << decode << " before prefill was ready";
        EXPECT_TRUE(fake.nodes.is_running(prefill));
        EXPECT_TRUE(fake.nodes.is_running(decode));
    }
    EXPECT_LT(prefill_ready, decode_ready);
    // The master and the router were not touched.
    EXPECT_EQ(event("stop pd-demo-mooncake-master-0"), -1);
    EXPECT_EQ(event("stop pd-demo-router-0"), -1);
    EXPECT_LT(last_event("journal"), last_event("unlock"));
    EXPECT_GT(last_event("journal"), decode_ready);
    EXPECT_NE(fake.nodes.journal.find(R"("event":"heal_action")"), std::string::npos);
    EXPECT_NE(fake.nodes.journal.find(R"("stage":"prefill")"), std::string::npos);
    EXPECT_TRUE(fake.nodes.lock_holder.empty());
    // Timed on the deployment's clock: each of the two groups' gates took its 5 s to pass.
    EXPECT_GE(step.elapsed_ms, 10'000);
}

TEST_F(HealTest, AGroupStoppedOnPurposeIsLeftStoppedAndSaidSo) {
    // `pdctl stop --group decode` took its units away and recorded who meant it.
    fake.stop_decode_on_purpose();

    const auto report = pass();
    EXPECT_EQ(report.code, ExitCode::kOk);
    ASSERT_EQ(report.steps.size(), 1u);
    EXPECT_EQ(report.steps.front().action.kind, HealKind::kStoppedOnPurpose);
    EXPECT_EQ(report.steps.front().action.stage, "decode");
    EXPECT_EQ(report.steps.front().outcome, "left stopped: stopped on purpose");
    EXPECT_EQ(fake.nodes.count("start "), 0u);
    EXPECT_EQ(fake.nodes.count("stop "), 0u);
    EXPECT_EQ(fake.nodes.count("journal"), 0u);

    // The same absence without the record is a crash: healed.
    fake.nodes.intent.clear();
    const auto healed = pass();
    ASSERT_EQ(healed.steps.size(), 1u);
    EXPECT_EQ(healed.steps.front().action.kind, HealKind::kRestart);
    EXPECT_TRUE(fake.nodes.is_running("pd-demo-decode-0"));
}

// The crash-loop back-off, through the journal the passes themselves write: a group healed max_tries
// times within the window that is broken again is left alone (exit 17), its log's last lines shown, and
// the giving up journaled; nothing is started.
TEST_F(HealTest, AGroupHealedMaxTriesTimesThatBreaksAgainIsLeftAloneWithItsLog) {
    HealRequest request;
    request.policy.max_tries = 2;
    for (int heal = 0; heal < 2; ++heal) {
        fake.nodes.crash_now("pd-demo-decode-2");
        const auto report = pass(request);
        ASSERT_EQ(report.code, ExitCode::kOk) << "heal " << heal;
        ASSERT_EQ(report.steps.front().action.kind, HealKind::kRestart);
        EXPECT_EQ(report.steps.front().action.tries, heal);
    }
    fake.nodes.crash_now("pd-demo-decode-2");
    const auto starts = fake.nodes.count("start ");
    const auto report = pass(request);
    EXPECT_EQ(report.code, ExitCode::kHealGaveUp);
    ASSERT_EQ(report.steps.size(), 1u);
    const auto& step = report.steps.front();
    EXPECT_EQ(step.action.kind, HealKind::kGiveUp);
    EXPECT_EQ(step.action.stage, "decode");
    EXPECT_EQ(step.action.tries, 2);
    EXPECT_EQ(step.code, ExitCode::kHealGaveUp);
    EXPECT_EQ(step.outcome, "left alone after 2 heals within 10m");
    ASSERT_FALSE(step.log_tail.empty());
    EXPECT_NE(step.log_tail.back().find("Mooncake memory registration failed"), std::string::npos);
    EXPECT_EQ(fake.nodes.count("start "), starts);
    EXPECT_NE(fake.nodes.journal.find(R"("event":"heal_gave_up")"), std::string::npos);
    EXPECT_FALSE(fake.nodes.is_running("pd-demo-decode-2"));
}

TEST_F(HealTest, ALockHeldByAnotherRunEndsThePassBeforeAnythingIsTouched) {
    fake.nodes.crash_now("pd-demo-prefill-1");
    fake.nodes.lock_holder = "user=bob\nhost=h2\npid=7\nverb=start\ntoken=other\n";
    try {
        pass();
        FAIL() << "the pass went on under a held lock";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kLocked);
        EXPECT_NE(std::string(failure.what()).find("bob"), std::string::npos) << failure.what();
    }
    EXPECT_EQ(fake.nodes.count("stop "), 0u);
    EXPECT_EQ(fake.nodes.count("start "), 0u);
    EXPECT_EQ(fake.nodes.count("inspect "), 0u) << "the status is not even read";
}

TEST_F(HealTest, ADryRunSaysWhatItWouldDoTouchesNothingAndExits7) {
    fake.nodes.crash_now("pd-demo-prefill-1");
    HealRequest request;
    request.dry_run = true;
    const auto report = pass(request);
    EXPECT_EQ(report.code, ExitCode::kDegraded);
    ASSERT_EQ(report.steps.size(), 1u);
    EXPECT_EQ(report.steps.front().outcome.rfind("would restart prefill", 0), 0u)
        << report.steps.front().outcome;
    EXPECT_EQ(fake.nodes.count("lock "), 0u);
    EXPECT_EQ(fake.nodes.count("stop "), 0u);
    EXPECT_EQ(fake.nodes.count("start "), 0u);
}

// --watch: a pass every interval on the deployment's clock (no time passes in between but the
// interval's), until Ctrl-C, which ends it with exit 130's code.
TEST_F(HealTest, WatchingRunsAPassEveryIntervalOnTheClockUntilInterrupted) {
    HealRequest request;
    request.watch = 30s;
    std::vector<engine::TimePoint> passes;
    HealWatchHooks hooks;
    hooks.pass = [&](const HealReport& report) {
        EXPECT_EQ(report.code, ExitCode::kOk);
        passes.push_back(fake.clock.now());
        if (passes.size() == 3) engine::interrupt_signal() = SIGINT;
    };
    hooks.failed = [](const Failure& failure) { ADD_FAILURE() << failure.what(); };
    EXPECT_EQ(run_heal(fake.deployment, request, screen, hooks), ExitCode::kInterrupted);
    ASSERT_EQ(passes.size(), 3u);
    EXPECT_EQ(passes[1] - passes[0], 30s);
    EXPECT_EQ(passes[2] - passes[1], 30s);
}

// Watching, a pass that meets a held lock is handed on and the next comes at its time; without
// --watch the same failure ends the command.
TEST_F(HealTest, WatchingAFailedPassIsReportedAndTheNextOneComes) {
    fake.nodes.lock_holder = "user=bob\nhost=h2\npid=7\nverb=start\ntoken=other\n";
    HealRequest request;
    request.watch = 1min;
    std::vector<ExitCode> failures;
    int passes = 0;
    HealWatchHooks hooks;
    hooks.failed = [&](const Failure& failure) {
        failures.push_back(failure.code());
        fake.nodes.lock_holder.clear();  // the other run ends
    };
    hooks.pass = [&](const HealReport&) {
        ++passes;
        engine::interrupt_signal() = SIGINT;
    };
    const auto began = fake.clock.now();
    EXPECT_EQ(run_heal(fake.deployment, request, screen, hooks), ExitCode::kInterrupted);
    EXPECT_EQ(failures, std::vector<ExitCode>{ExitCode::kLocked});
    EXPECT_EQ(passes, 1);
    EXPECT_EQ(fake.clock.now() - began, 2min);

    engine::interrupt_signal() = 0;
    fake.nodes.lock_holder = "user=bob\nhost=h2\npid=7\nverb=start\ntoken=other\n";
    request.watch.reset();
    EXPECT_THROW(run_heal(fake.deployment, request, screen, hooks), Failure);
}

}  // namespace
}  // namespace pdctl::ops
