#include "pdctl/ops/lock.hpp"

#include <fmt/format.h>

#include "pdctl/ops/mutating_run.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/operator_identity.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
namespace {

using state::lock::Liveness;
using state::lock::State;

LockView look_at_lock(const Deployment& deployment, const state::OperatorIdentity& me) {
    const auto& cluster = deployment.cluster;
    const auto& coordinator = state::coordinator_node(cluster);
    LockView lock;
    lock.cluster = cluster.name;
    lock.coordinator = coordinator.name;
    lock.path = state::lock_directory(cluster);
    lock.where = state::lock_location(cluster);
    const auto answer = deployment.executor->run(coordinator, state::lock::status_command(lock.path));
    if (!answer.transport_error.empty())
        throw Failure(ExitCode::kUnreachable,
                      fmt::format("{} ({}), the coordinator, is unreachable: {}", coordinator.name,
                                  coordinator.address, answer.transport_error));
    lock.observed = state::lock::parse_status(answer);
    lock.liveness = state::holder_liveness(lock.observed.holder, me);
    lock.read_at = util::epoch_seconds_now();
    return lock;
}

// Throws when `me` may not remove the lock as it is.
void check_release_allowed(const LockView& lock, bool mine, bool force) {
    const auto& observed = lock.observed;
    // Your own lock whose pdctl still runs here (another terminal): releasing it would let a second run
    // in under a deploy that is still going, so that takes --force like anyone else's.
    if (mine && lock.liveness == Liveness::kAlive && !force)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("deploy lock held by {}: its pdctl is still running on this machine",
                        state::lock::describe_holder(observed.holder, util::epoch_seconds_now())),
            fmt::format("end that run (Ctrl-C in its terminal, or kill -INT {}); `pdctl lock release "
                        "--force` removes the lock anyway",
                        observed.holder.pid));
    if (mine || force) return;
    if (observed.state == State::kIncomplete)
        throw Failure(
            ExitCode::kLocked,
            state::lock::locked_message(observed, lock.liveness, lock.where, util::epoch_seconds_now()),
            "`pdctl lock release --force` removes it");
    throw Failure(ExitCode::kLocked,
                  fmt::format("deploy lock held by {}{}; only {} may release it without --force",
                              state::lock::describe_holder(observed.holder, util::epoch_seconds_now()),
                              lock.liveness == Liveness::kDead ? " (STALE: its pdctl is gone)" : "",
                              observed.holder.who()),
                  "`pdctl lock release --force` breaks it; tell " + observed.holder.who() + " first");
}

}  // namespace

LockView look_at_lock(const Deployment& deployment) {
    return look_at_lock(deployment, state::current_operator());
}

namespace {

LockRelease release_lock_if_allowed(const Deployment& deployment, bool force) {
    const auto me = state::current_operator();
    LockRelease release{look_at_lock(deployment, me), LockReleased::kAlreadyFree, {}};
    const auto& observed = release.lock.observed;
    if (observed.state == State::kFree) return release;
    const bool mine = observed.state == State::kHeld &&
                      state::lock::may_release_without_force(observed.holder, me.user, me.host);
    check_release_allowed(release.lock, mine, force);

    // The token read above: if the lock changed hands since, the new holder's lock stays.
    const auto answer =
        deployment.executor->run(state::coordinator_node(deployment.cluster),
                                 state::lock::release_command(release.lock.path, observed.holder.token));
    const auto result = state::lock::parse_release(answer);
    if (result.outcome == state::lock::ReleaseOutcome::kChangedHands)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("the deploy lock changed hands meanwhile; it is now held by {} and was left alone",
                        state::lock::describe_holder(result.current, util::epoch_seconds_now())),
            "`pdctl lock status`, then release again if you mean to");
    if (result.outcome == state::lock::ReleaseOutcome::kAlreadyFree) return release;
    if (mine) {
        release.what = LockReleased::kOwn;
        return release;
    }
    // A broken lock is worth an audit line: who broke whose lock, when.
    release.what = LockReleased::kBroken;
    release.broken = lock_broken_message(release.lock, util::epoch_seconds_now());
    journal_audit(deployment, "lock release --force", release.broken);
    return release;
}

}  // namespace

LockRelease release_lock(const Deployment& deployment, bool force) {
    auto release = release_lock_if_allowed(deployment, force);
    release.at = util::epoch_seconds_now();
    return release;
}

std::string lock_broken_message(const LockView& lock, long long now_epoch) {
    const bool held = lock.observed.state == State::kHeld;
    const std::string whose =
        held ? state::lock::describe_holder(lock.observed.holder, now_epoch) : "nobody (it named no holder)";
    std::string message = fmt::format("broke the deploy lock held by {} at {}", whose, lock.where);
    if (lock.liveness == Liveness::kAlive)
        message += fmt::format("; warning: its pdctl (pid {}) is still running", lock.observed.holder.pid);
    else if (lock.liveness == Liveness::kUnknown && held)
        message += fmt::format("; its run on {} may still be going", lock.observed.holder.host);
    return message;
}

}  // namespace pdctl::ops
