// Engine ordering and failure policy against a fake cluster and a fake clock: no sleeps, no processes.
#include "pdctl/engine/engine.hpp"

#include <gtest/gtest.h>

#include "pdctl/plan/builder.hpp"
#include "unit/support/fake_cluster.hpp"
#include "unit/support/recording_reporter.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::engine {
namespace {

using namespace std::chrono_literals;

class EngineTest : public ::testing::Test {
  protected:
    void SetUp() override { interrupt_signal() = 0; }
    void TearDown() override { interrupt_signal() = 0; }

    Engine make_engine(EngineOptions options = {}) {
        return Engine(plan, nodes.backend, nodes, clock, reporter, options);
    }

    // A decode that never becomes ready, with a gate deadline of 2 minutes instead of its kind's 30: the
    // wait is the same code either way, and each simulated half second of it is a round of liveness
    // checks, whose threads cost a sanitizer build real time (30 minutes were 3600 rounds, 19 s under
    // ASan, and past the shard's 15-minute bound on a busy machine).
    void decode_never_ready() {
        nodes.behaviour["pd-demo-decode-0"].ready_after = 10h;
        for (auto& stage : plan.stages)
            if (stage.role == "decode") stage.gate.deadline = 2min;
    }

    // Once prefill waits on its gate, `node`'s next `count` listings time out (a node too slow to list
    // its units, or one that stopped answering).
    void listings_time_out_once_prefill_waits(const std::string& node, int count) {
        nodes.on_probe = [this, node, count, armed = false]() mutable {
            if (armed || nodes.index_of("start pd-demo-prefill-0") < 0) return;
            armed = true;
            nodes.inspect_timeouts[node] = count;
        };
    }

    plan::Plan plan = plan::build_plan(testing::sample_cluster());
    FakeClock clock;
    testing::FakeCluster nodes{plan, clock};
    testing::RecordingReporter reporter;
};

TEST_F(EngineTest, StartsStagesInOrderEachAfterThePreviousGatePassed) {
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    const int master_ready = nodes.index_of("ready mooncake-master");
    const int prefill_ready = nodes.index_of("ready prefill");
    const int decode_ready = nodes.index_of("ready decode");
    ASSERT_GE(master_ready, 0);
    ASSERT_GT(prefill_ready, master_ready);
    ASSERT_GT(decode_ready, prefill_ready);
    for (int rank = 0; rank < 4; ++rank) {
        const int prefill = nodes.index_of("start pd-demo-prefill-" + std::to_string(rank));
        const int decode = nodes.index_of("start pd-demo-decode-" + std::to_string(rank));
        EXPECT_GT(prefill, master_ready) << "prefill rank " << rank << " started before the master was ready";
        EXPECT_GT(decode, prefill_ready)
            << "decode rank " << rank << " started before prefill passed its gate";
    }
    EXPECT_GT(nodes.index_of("start pd-demo-router-0"), decode_ready)
        << "router started before decode was ready";
    EXPECT_EQ(nodes.count("stop "), 0u);
}

// A rank that fails takes its group down: rank 0 follows within a second ("Rank 2 scheduler is
// dead"). A liveness check that finds both dead must name rank 2, whose log has the exception, not
// rank 0, which comes first in the group (seen under load in the integration suite).
TEST_F(EngineTest, WhenSeveralRanksAreFoundDeadTheOneWithItsOwnFailureIsNamed) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-0"].crash_after = 7s;
    nodes.behaviour["pd-demo-prefill-0"].log = {
        {0s, "[2026-11-29 08:15:10 TP0] Load weight begin. avail mem=78.21 GB"},
        {7s, "[2026-11-29 08:15:17] Rank 2 scheduler is dead. Please check if there are relevant logs."}};
    nodes.behaviour["pd-demo-prefill-2"].crash_after = 7s;
    nodes.behaviour["pd-demo-prefill-2"].log = {
        {0s, "[2026-11-29 08:15:10 TP16] Load weight begin. avail mem=78.21 GB"},
        {6s, "[2026-11-29 08:15:16 TP16] Scheduler hit an exception: pdsim injected crash at weights"}};
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);
    EXPECT_EQ(reporter.failure.node, "n3");
    EXPECT_EQ(reporter.failure.rank, 2);
    ASSERT_FALSE(reporter.failure.log_tail.empty());
    EXPECT_NE(reporter.failure.log_tail.back().find("Scheduler hit an exception"), std::string::npos);
}

// Under load a node can be slow to list its units for a while (its inspect times out), and by the
// round that sees the crashed rank the group has followed it down, the others with errors of their
// own (a lost NCCL connection). The one that ended first is named, by the times the nodes recorded.
TEST_F(EngineTest, WhenSeveralRanksAreFoundDeadTheOneThatEndedFirstIsNamed) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-2"].crash_after = 6s;
    nodes.behaviour["pd-demo-prefill-2"].log = {
        {6s, "[2026-11-29 08:15:16 TP16] Scheduler hit an exception: pdsim injected crash at weights"}};
    nodes.behaviour["pd-demo-prefill-1"].crash_after = 9s;
    nodes.behaviour["pd-demo-prefill-1"].log = {
        {9s,
         "[2026-11-29 08:15:19 TP8] Scheduler hit an exception: torch.distributed.DistBackendError: NCCL "
         "communicator was aborted: the connection to rank 0 was lost"}};
    // Rank 2's node turns slow once prefill waits on its gate: blind until well after rank 1 died too.
    listings_time_out_once_prefill_waits("n3", 24);
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);
    EXPECT_EQ(reporter.failure.node, "n3");
    EXPECT_EQ(reporter.failure.rank, 2);
}

// Seen under SLURM with ASan (tests/slurm/allocation_test.sh, step 4): rank 2 crashes, srun's
// --kill-on-bad-exit stops rank 0 (SIGTERM: it records exit 0), and one round lists n1 after that stop
// but n3 just before the crash. Rank 0, ended without an error of its own while rank 2 still looks
// alive, is a consequence until the next round: that round sees rank 2's crash, which is named.
TEST_F(EngineTest, ARankStoppedWithoutAnErrorIsNotNamedWhileTheRoundSawItsCauseStillRunning) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    // Liveness rounds come every 500 ms of fake time: the round at 6.5 s after prefill's start lists n1
    // with rank 0 just ended and n3 as it was at 6.1 s, rank 2 still running; the next one sees both.
    nodes.behaviour["pd-demo-prefill-0"].crash_after = 6500ms;
    nodes.behaviour["pd-demo-prefill-0"].exit_code = "0";
    nodes.behaviour["pd-demo-prefill-0"].log = {
        {0s, "[2026-11-29 08:15:10 TP0] Load weight begin. avail mem=78.21 GB"}};
    nodes.behaviour["pd-demo-prefill-2"].crash_after = 6400ms;
    nodes.behaviour["pd-demo-prefill-2"].log = {
        {0s, "[2026-11-29 08:15:10 TP16] Load weight begin. avail mem=78.21 GB"},
        {6s, "[2026-11-29 08:15:16 TP16] Scheduler hit an exception: pdsim injected crash at weights"}};
    nodes.inspect_lag["n3"] = 400ms;  // less than a round: n3 answered first, before the crash
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);
    EXPECT_EQ(reporter.failure.node, "n3");
    EXPECT_EQ(reporter.failure.rank, 2);
    EXPECT_NE(reporter.failure.reason.find("exited (code 1)"), std::string::npos) << reporter.failure.reason;
}

// Without a cause in sight, the stopped rank is named on the next round: the wait is one round.
TEST_F(EngineTest, ARankThatEndsWithoutAnErrorIsNamedOneRoundLater) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-1"].crash_after = 3s;
    nodes.behaviour["pd-demo-prefill-1"].exit_code = "137";
    nodes.behaviour["pd-demo-prefill-1"].log = {
        {0s, "[2026-11-29 08:15:10 TP8] Load weight begin. avail mem=78.21 GB"}};
    const auto began = clock.now();
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);
    EXPECT_EQ(reporter.failure.node, "n2");
    EXPECT_NE(reporter.failure.reason.find("exited (code 137)"), std::string::npos)
        << reporter.failure.reason;
    // The master became ready after 5 s of fake time; prefill started then and rank 1 ended 3 s later.
    EXPECT_LE(clock.now() - (began + 5s + 3s), 2s) << "held for one round, not for a grace";
}

TEST_F(EngineTest, ANodeThatStaysBlindDoesNotHoldADeadUnitsVerdictForever) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-1"].crash_after = 3s;
    const auto began = clock.now();
    // n4 stops listing its units for good once prefill waits on its gate.
    listings_time_out_once_prefill_waits("n4", 1000000);
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);
    EXPECT_EQ(reporter.failure.node, "n2");
    EXPECT_LT(clock.now() - began, 30s) << "named within the grace, not at the gate deadline";
}

// "Ready" says every rank runs. A node that cannot list its units when the gate passes (too slow, or
// its link went down: rank 0 answers /health while a peer on it is cut off) holds the stage back until
// a round sees its unit.
TEST_F(EngineTest, AGateThatPassesWhileARankIsUnseenWaitsForARoundThatSeesIt) {
    listings_time_out_once_prefill_waits("n3", 30);
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    EXPECT_EQ(nodes.inspect_timeouts["n3"], 0) << "ready before n3 listed its unit";
    const auto said = std::find_if(reporter.gate_answers.begin(), reporter.gate_answers.end(), [](auto& a) {
        return a.find(
                   "prefill: HTTP 200, but prefill rank 2 on n3 was not seen running (inspect timed out)") !=
               std::string::npos;
    });
    EXPECT_NE(said, reporter.gate_answers.end()) << ::testing::PrintToString(reporter.gate_answers);
}

// The link-down case: n3's listing times out in the round just before rank 0 passes its gate, and n3
// cannot be reached from then on. Ready there would start decode beside a prefill group with a rank cut
// off; the round the passing gate asks for finds n3 unreachable instead.
TEST_F(EngineTest, ARankUnseenWhenTheGatePassesAndThenUnreachableFailsTheStartNamingItsNode) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    bool armed = false, cut_off = false;
    nodes.on_probe = [&] {
        if (nodes.index_of("start pd-demo-prefill-0") < 0 || cut_off) return;
        if (!armed) {
            armed = true;
            nodes.inspect_timeouts["n3"] = 1000000;  // the link goes down: n3's listings time out
        } else if (nodes.inspect_timeouts["n3"] < 1000000) {
            // A round met it; from now on n3 cannot even be connected, and this very probe passes.
            cut_off = true;
            nodes.unreachable_nodes.insert("n3");
            nodes.behaviour["pd-demo-prefill-0"].ready_after = 0s;
        }
    };
    EXPECT_EQ(make_engine().start(), ExitCode::kUnreachable);
    EXPECT_TRUE(cut_off);
    EXPECT_EQ(reporter.failure.node, "n3");
    EXPECT_EQ(reporter.failure.rank, 2);
    EXPECT_EQ(std::count(reporter.events.begin(), reporter.events.end(), "ready prefill"), 0);
    EXPECT_EQ(nodes.count("start pd-demo-decode"), 0u);
}

TEST_F(EngineTest, ARankUnseenUntilTheDeadlineIsNamedNotRankZero) {
    for (auto& stage : plan.stages)
        if (stage.role == "prefill") stage.gate.deadline = 2min;
    listings_time_out_once_prefill_waits("n4", 1000000);
    EXPECT_EQ(make_engine().start(), ExitCode::kGateTimeout);
    EXPECT_EQ(reporter.failure.node, "n4");
    EXPECT_EQ(reporter.failure.rank, 3);
    EXPECT_NE(reporter.failure.reason.find("passed, but the rank was not seen running within 2m00s (inspect "
                                           "timed out)"),
              std::string::npos)
        << reporter.failure.reason;
}

// Listing the units of a stage that waits is spaced out by how long a round takes: slow rounds (many
// nodes behind one bastion, nodes sharing cores) are not run back to back for the whole wait.
TEST_F(EngineTest, SlowLivenessRoundsAreSpacedOutByFourTimesTheirLength) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 60s;
    nodes.inspect_takes = 250ms;  // prefill's four nodes: a round takes 1 s
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    // 60 s of waiting: one round per 5 s (1 s of listing, then 4 s), where back to back it was 60.
    const auto rounds = nodes.count("inspect n2");
    EXPECT_GE(rounds, 8u);
    EXPECT_LE(rounds, 16u);
}

// ... but by 15 s at most: a round is also slow when a node stopped answering (its inspect waits out its
// timeout), and the round that finds it unreachable must not come minutes later.
TEST_F(EngineTest, AVerySlowLivenessRoundSpacesTheNextByFifteenSecondsAtMost) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 300s;
    for (auto& stage : plan.stages)
        if (stage.role == "prefill") stage.gate.deadline = 10min;
    nodes.inspect_takes = 5s;  // prefill's four nodes: a round takes 20 s
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    // 300 s of waiting: a round per 35 s (20 s of listing, then 15 s), where four times the round was
    // one per 100 s (4 rounds).
    const auto rounds = nodes.count("inspect n2");
    EXPECT_GE(rounds, 7u);
    EXPECT_LE(rounds, 11u);
}

TEST_F(EngineTest, CrashOnNonZeroPrefillRankFailsWithinTwoSecondsAndCleansUp) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    nodes.behaviour["pd-demo-prefill-2"].crash_after = 7s;
    const auto began = clock.now();
    EXPECT_EQ(make_engine().start(), ExitCode::kStageFailed);

    // The master became ready after 5 s of fake time; prefill started then and rank 2 died 7 s later.
    const auto crash_at = began + 5s + 7s;
    EXPECT_LE(clock.now() - crash_at, 2s) << "failure noticed too late";
    EXPECT_EQ(reporter.failure.role, "prefill");
    EXPECT_EQ(reporter.failure.node, "n3");
    EXPECT_EQ(reporter.failure.rank, 2);
    EXPECT_EQ(reporter.failure.reason, "exited (code 1)");
    ASSERT_FALSE(reporter.failure.log_tail.empty());
    EXPECT_NE(reporter.failure.log_tail.back().find("Scheduler hit an exception"), std::string::npos);
    EXPECT_NE(reporter.failure.hint.find("expandable_segments"), std::string::npos);

    EXPECT_EQ(nodes.count("start pd-demo-decode"), 0u) << "decode must never start after prefill failed";
    EXPECT_EQ(nodes.count("start pd-demo-router"), 0u);
    // Clean-up in reverse order: prefill units first, then the master.
    const int last_prefill_stop =
        std::max({nodes.index_of("stop pd-demo-prefill-0"), nodes.index_of("stop pd-demo-prefill-1"),
                  nodes.index_of("stop pd-demo-prefill-2"), nodes.index_of("stop pd-demo-prefill-3")});
    EXPECT_GE(nodes.index_of("stop pd-demo-prefill-0"), 0);
    EXPECT_GT(nodes.index_of("stop pd-demo-mooncake-master-0"), last_prefill_stop);
    for (const auto& stage : plan.stages)
        for (const auto& unit : stage.units) EXPECT_FALSE(nodes.is_running(unit.name)) << unit.name;
    EXPECT_EQ(reporter.summary.cleaned_up, (std::vector<std::string>{"prefill", "mooncake-master"}));
}

TEST_F(EngineTest, GateTimeoutIsReportedWithRankZeroLogAndCleansUp) {
    decode_never_ready();
    EXPECT_EQ(make_engine().start(), ExitCode::kGateTimeout);
    EXPECT_EQ(reporter.failure.role, "decode");
    EXPECT_EQ(reporter.failure.node, "n5");
    EXPECT_NE(reporter.failure.reason.find("did not pass within 2m00s"), std::string::npos)
        << reporter.failure.reason;
    EXPECT_FALSE(reporter.failure.log_tail.empty());
    EXPECT_EQ(nodes.count("start pd-demo-router"), 0u);
    EXPECT_FALSE(nodes.is_running("pd-demo-prefill-0"));
}

// The last probe before the deadline can outlast it: its "no answer" is pdctl's own timeout, not what
// the server said, so the failure still quotes the server's last answer, and says what became of the
// probe after it.
TEST_F(EngineTest, AProbeTheDeadlineCutsShortDoesNotHideTheServersLastAnswer) {
    decode_never_ready();
    const std::string decode_gate = plan.find_stage("decode")->gate.url;
    int decode_probes = 0;
    nodes.stall_probe = [&](const std::string& url) {
        if (url != decode_gate || ++decode_probes < 3) return false;
        clock.advance(1h);  // past the stage's deadline while it waits
        return true;
    };
    EXPECT_EQ(make_engine().start(), ExitCode::kGateTimeout);
    const auto& reason = reporter.failure.reason;
    EXPECT_NE(reason.find("(last answer: HTTP 503; the probe after it, cut short by the deadline: Read)"),
              std::string::npos)
        << reason;
}

TEST_F(EngineTest, KeepOnFailureLeavesUnitsRunning) {
    decode_never_ready();
    EngineOptions options;
    options.keep_on_failure = true;
    EXPECT_EQ(make_engine(options).start(), ExitCode::kGateTimeout);
    EXPECT_EQ(nodes.count("stop "), 0u);
    EXPECT_TRUE(nodes.is_running("pd-demo-prefill-0"));
}

TEST_F(EngineTest, StartOnAHealthyClusterChangesNothing) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    const auto starts = nodes.count("start ");
    reporter.events.clear();
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    EXPECT_EQ(nodes.count("start "), starts);
    EXPECT_EQ(nodes.count("stop "), 0u);
    EXPECT_EQ(reporter.summary.message, "already running and healthy; nothing changed");
}

TEST_F(EngineTest, DriftRestartsThatStageAndEveryLaterOne) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    // decode was started from another config: decode and router are replaced, master and prefill kept.
    for (const auto& unit : plan.find_stage("decode")->units) nodes.preload_running(unit, "0123456789ab");
    nodes.events.clear();
    EXPECT_EQ(make_engine().start(), ExitCode::kOk);
    EXPECT_EQ(nodes.count("start pd-demo-prefill"), 0u);
    EXPECT_EQ(nodes.count("start pd-demo-decode"), 4u);
    EXPECT_EQ(nodes.count("start pd-demo-router"), 1u);
    EXPECT_LT(nodes.index_of("stop pd-demo-router-0"), nodes.index_of("stop pd-demo-decode-0"));
    EXPECT_LT(nodes.index_of("stop pd-demo-decode-0"), nodes.index_of("start pd-demo-decode-0"));
}

TEST_F(EngineTest, AnInspectThatTimesOutWhileAStageWaitsIsNotADeadUnit) {
    // n2 is slow to list its units for a few rounds while prefill loads: that says nothing about them.
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 5s;
    bool made_slow = false;
    nodes.on_probe = [&] {
        if (!made_slow) nodes.inspect_timeouts["n2"] = 3;
        made_slow = true;
    };
    EXPECT_EQ(make_engine().start(), ExitCode::kOk) << reporter.summary.message;
}

TEST_F(EngineTest, StartRefusesANodeThatCannotListItsUnits) {
    // Its units may be running: starting beside them would double them.
    nodes.inspect_timeouts["n4"] = 1;
    EXPECT_EQ(make_engine().start(), ExitCode::kUnreachable);
    EXPECT_EQ(nodes.count("start "), 0u);
    EXPECT_NE(reporter.summary.message.find("n4 (10.0.0.4) did not list its units: inspect timed out"),
              std::string::npos)
        << reporter.summary.message;
}

TEST_F(EngineTest, AListingThatFailsWithoutAWordIsStillAFailureNotANodeWithoutUnits) {
    // Its stderr is empty: the failure must still count, and say what it was (issue 27).
    nodes.inspect_silent_failures["n4"] = 1;
    EXPECT_EQ(make_engine().start(), ExitCode::kUnreachable);
    EXPECT_EQ(nodes.count("start "), 0u);
    EXPECT_NE(reporter.summary.message.find("n4 (10.0.0.4) did not list its units: inspect exit 1"),
              std::string::npos)
        << reporter.summary.message;
}

TEST_F(EngineTest, StopRunsInReverseOrderAndIsIdempotent) {
    ASSERT_EQ(make_engine().start(), ExitCode::kOk);
    nodes.events.clear();
    EXPECT_EQ(make_engine().stop(), ExitCode::kOk);
    const int router = nodes.index_of("stop pd-demo-router-0");
    const int decode = nodes.index_of("stop pd-demo-decode-3");
    const int prefill = nodes.index_of("stop pd-demo-prefill-0");
    const int master = nodes.index_of("stop pd-demo-mooncake-master-0");
    EXPECT_LT(router, decode);
    EXPECT_LT(decode, prefill);
    EXPECT_LT(prefill, master);
    EXPECT_EQ(make_engine().stop(), ExitCode::kOk);
}

TEST_F(EngineTest, InterruptDuringAGateStopsWhatThisRunStarted) {
    nodes.behaviour["pd-demo-prefill-0"].ready_after = 10min;
    int probes = 0;
    nodes.on_probe = [&] {
        if (++probes == 5) interrupt_signal() = 2;  // SIGINT while prefill loads
    };
    EXPECT_EQ(make_engine().start(), ExitCode::kInterrupted);
    EXPECT_EQ(nodes.count("start pd-demo-decode"), 0u);
    EXPECT_FALSE(nodes.is_running("pd-demo-prefill-1"));
    EXPECT_FALSE(nodes.is_running("pd-demo-mooncake-master-0"));
}

TEST_F(EngineTest, UnreachableNodeFailsStartNamingIt) {
    nodes.unreachable_nodes.insert("n7");
    EXPECT_EQ(make_engine().start(), ExitCode::kUnreachable);
    EXPECT_NE(reporter.summary.message.find("n7 (10.0.0.7) is unreachable"), std::string::npos)
        << reporter.summary.message;
    EXPECT_EQ(nodes.count("start "), 0u);
}

}  // namespace
}  // namespace pdctl::engine
