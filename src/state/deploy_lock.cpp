#include "pdctl/state/deploy_lock.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::state {
std::string lock_directory(const config::Cluster& cluster) {
    return state::lock::lock_path(config::cluster_state_dir(cluster.state_dir, cluster.name));
}

std::string lock_location(const config::Cluster& cluster) {
    return state::coordinator_node(cluster).name + ":" + lock_directory(cluster);
}

DeployLock::DeployLock(exec::Executor& executor, const config::Cluster& cluster, const OperatorIdentity& me,
                       const std::string& verb, const std::string& token,
                       WhenCoordinatorUnreachable unreachable)
    : executor_(executor), cluster_(cluster), token_(token) {
    const auto& coordinator = state::coordinator_node(cluster);
    const auto began = util::SteadyClock::now();
    const auto answer = executor.run(
        coordinator, state::lock::acquire_command(lock_directory(cluster), holder_for(me, verb, token)));
    if (!answer.transport_error.empty() && unreachable == WhenCoordinatorUnreachable::kGoOnUnlocked) {
        why_not_held_ = fmt::format("{} ({}), the coordinator, is unreachable: {}", coordinator.name,
                                    coordinator.address, answer.transport_error);
        return;
    }
    if (!answer.transport_error.empty()) {
        throw Failure(ExitCode::kUnreachable,
                      fmt::format("{} ({}), the coordinator, is unreachable: cannot take the deploy lock: {}",
                                  coordinator.name, coordinator.address, answer.transport_error),
                      "`coordinator:` in the config names the node that keeps the lock and the journal");
    }
    const auto result = state::lock::parse_acquire(answer);
    if (!result.acquired) {
        const auto liveness = holder_liveness(result.current.holder, me);
        throw Failure(ExitCode::kLocked,
                      state::lock::locked_message(result.current, liveness, lock_location(cluster),
                                                  util::epoch_seconds_now()),
                      state::lock::locked_hint(result.current, liveness));
    }
    held_ = true;
    spdlog::info("deploy lock taken at {} in {} ms", lock_location(cluster),
                 util::milliseconds_since(began).count());
}

DeployLock::~DeployLock() {
    try {
        release();
    } catch (...) {
        // A destructor must not throw; release() already reported what went wrong.
    }
}

void DeployLock::release() {
    if (!held_) return;
    held_ = false;
    const auto& coordinator = state::coordinator_node(cluster_);
    const auto answer =
        executor_.run(coordinator, state::lock::release_command(lock_directory(cluster_), token_));
    try {
        const auto result = state::lock::parse_release(answer);
        if (result.outcome == state::lock::ReleaseOutcome::kChangedHands) {
            spdlog::warn("the deploy lock was broken during this run and is now held by {}; left it alone",
                         state::lock::describe_holder(result.current, util::epoch_seconds_now()));
        } else if (result.outcome == state::lock::ReleaseOutcome::kAlreadyFree) {
            spdlog::warn(
                "the deploy lock was broken during this run (someone ran `pdctl lock release --force`)");
        }
    } catch (const Failure& failure) {
        spdlog::error("could not release the deploy lock at {}: {}; `pdctl lock release` removes it",
                      lock_location(cluster_), failure.what());
    }
}

}  // namespace pdctl::state
