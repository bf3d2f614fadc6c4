// report/lock_view: the text and JSON of `pdctl lock status` and `pdctl lock release`.
#include "pdctl/report/lock_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

using state::lock::Liveness;
using state::lock::State;

constexpr long long kNow = 1'800'000'192;

LockView lock_in(State state, Liveness liveness = Liveness::kUnknown) {
    LockView lock;
    lock.cluster = "demo";
    lock.coordinator = "n1";
    lock.path = "/var/lib/pdctl/demo/lock";
    lock.where = "n1:/var/lib/pdctl/demo/lock";
    lock.observed.state = state;
    lock.liveness = liveness;
    if (state == State::kHeld) {
        auto& holder = lock.observed.holder;
        holder.user = "alice";
        holder.host = "jump1";
        holder.pid = 4242;
        holder.since = "2027-01-15T08:00:00Z";
        holder.since_epoch = kNow - 192;
        holder.verb = "start";
        holder.version = "0.1.0";
        holder.token = "r-1";
    }
    return lock;
}

TEST(LockView, StatusTextForEachState) {
    EXPECT_EQ(render_lock_status_text(lock_in(State::kFree), kNow),
              "deploy lock: free (n1:/var/lib/pdctl/demo/lock)\n");
    EXPECT_EQ(
        render_lock_status_text(lock_in(State::kIncomplete), kNow),
        "deploy lock: n1:/var/lib/pdctl/demo/lock exists but names no holder: a pdctl is taking it right "
        "now, or one died doing so\n  if no pdctl is deploying: pdctl lock release --force\n");
    EXPECT_EQ(render_lock_status_text(lock_in(State::kHeld, Liveness::kAlive), kNow),
              "deploy lock: held by alice@jump1 (pid 4242, start, since 2027-01-15T08:00:00Z, 3m12s ago)\n"
              "  at n1:/var/lib/pdctl/demo/lock · pdctl 0.1.0 · run r-1\n"
              "  its pdctl (pid 4242) is running on this machine\n");
    EXPECT_EQ(
        render_lock_status_text(lock_in(State::kHeld, Liveness::kDead), kNow),
        "deploy lock: STALE, held by alice@jump1 (pid 4242, start, since 2027-01-15T08:00:00Z, 3m12s ago)\n"
        "  at n1:/var/lib/pdctl/demo/lock · pdctl 0.1.0 · run r-1\n"
        "  STALE: pid 4242 no longer runs on jump1; `pdctl lock release --force` removes it (never done "
        "automatically)\n");
}

TEST(LockView, StatusJsonNamesTheHolderAndWhetherItRuns) {
    EXPECT_EQ(
        lock_status_to_json(lock_in(State::kFree), kNow).dump(),
        R"({"cluster":"demo","coordinator":"n1","holder":null,"path":"/var/lib/pdctl/demo/lock","state":"free"})");
    const auto held = lock_status_to_json(lock_in(State::kHeld), kNow);
    EXPECT_EQ(held["state"], "held");
    EXPECT_EQ(
        held["holder"].dump(),
        R"({"age_seconds":192,"host":"jump1","pid":4242,"run":"r-1","running":null,)"
        R"("since":"2027-01-15T08:00:00Z","user":"alice","verb":"start","version":"0.1.0","who":"alice@jump1"})");
    EXPECT_EQ(lock_status_to_json(lock_in(State::kHeld, Liveness::kDead), kNow)["state"], "stale");
    EXPECT_EQ(lock_status_to_json(lock_in(State::kHeld, Liveness::kAlive), kNow)["holder"]["running"], true);
    EXPECT_EQ(lock_status_to_json(lock_in(State::kIncomplete), kNow)["state"], "incomplete");
}

TEST(LockView, ReleaseMessages) {
    EXPECT_EQ(lock_already_free_message(lock_in(State::kFree)),
              "deploy lock: already free (n1:/var/lib/pdctl/demo/lock)");
    EXPECT_EQ(lock_released_own_message(lock_in(State::kHeld), kNow),
              "deploy lock released (it was yours: alice@jump1 (pid 4242, start, since 2027-01-15T08:00:00Z, "
              "3m12s ago))");
    const std::string broke =
        "broke the deploy lock held by alice@jump1 (pid 4242, start, since "
        "2027-01-15T08:00:00Z, 3m12s ago) at n1:/var/lib/pdctl/demo/lock";
    EXPECT_EQ(ops::lock_broken_message(lock_in(State::kHeld, Liveness::kDead), kNow), broke);
    EXPECT_EQ(ops::lock_broken_message(lock_in(State::kHeld, Liveness::kAlive), kNow),
              broke + "; warning: its pdctl (pid 4242) is still running");
    EXPECT_EQ(ops::lock_broken_message(lock_in(State::kHeld, Liveness::kUnknown), kNow),
              broke + "; its run on jump1 may still be going");
    EXPECT_EQ(ops::lock_broken_message(lock_in(State::kIncomplete), kNow),
              "broke the deploy lock held by nobody (it named no holder) at n1:/var/lib/pdctl/demo/lock");
}

TEST(LockView, ReleaseJson) {
    const auto document =
        lock_release_to_json(lock_in(State::kHeld, Liveness::kDead), "broke it", true, true, kNow);
    EXPECT_EQ(document["cluster"], "demo");
    EXPECT_EQ(document["path"], "/var/lib/pdctl/demo/lock");
    EXPECT_EQ(document["released"], true);
    EXPECT_EQ(document["broken"], true);
    EXPECT_EQ(document["message"], "broke it");
    EXPECT_EQ(document["holder"]["running"], false);
    EXPECT_FALSE(document.contains("coordinator"));
    EXPECT_TRUE(lock_release_to_json(lock_in(State::kFree), "free", false, false, kNow)["holder"].is_null());
}

}  // namespace
}  // namespace pdctl::report
