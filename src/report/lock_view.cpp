#include "pdctl/report/lock_view.hpp"

#include <fmt/format.h>

namespace pdctl::report {

using nlohmann::json;
using state::lock::Liveness;
using state::lock::State;

namespace {

const char* state_name(const LockView& lock) {
    if (lock.observed.state == State::kFree) return "free";
    if (lock.observed.state == State::kIncomplete) return "incomplete";
    return lock.liveness == Liveness::kDead ? "stale" : "held";
}

json holder_json(const state::lock::Holder& holder, Liveness liveness, long long now_epoch) {
    return {{"who", holder.who()},
            {"user", holder.user},
            {"host", holder.host},
            {"pid", holder.pid},
            {"since", holder.since},
            {"age_seconds", holder.since_epoch > 0 ? now_epoch - holder.since_epoch : 0},
            {"verb", holder.verb},
            {"version", holder.version},
            {"run", holder.token},
            // null: the holder is on another host, whose processes pdctl cannot see.
            {"running", liveness == Liveness::kUnknown ? json(nullptr) : json(liveness == Liveness::kAlive)}};
}

// The holder, or null when the lock names none.
json holder_or_null(const LockView& lock, long long now_epoch) {
    if (lock.observed.state != State::kHeld) return nullptr;
    return holder_json(lock.observed.holder, lock.liveness, now_epoch);
}

std::string liveness_text(const state::lock::Holder& holder, Liveness liveness) {
    switch (liveness) {
        case Liveness::kAlive:
            return fmt::format("its pdctl (pid {}) is running on this machine", holder.pid);
        case Liveness::kDead:
            return fmt::format(
                "STALE: pid {} no longer runs on {}; `pdctl lock release --force` removes it "
                "(never done automatically)",
                holder.pid, holder.host);
        case Liveness::kUnknown:
            break;
    }
    return fmt::format("held from {}: pdctl cannot see whether that run is still going", holder.host);
}

}  // namespace

std::string render_lock_status_text(const LockView& lock, long long now_epoch) {
    switch (lock.observed.state) {
        case State::kFree:
            return fmt::format("deploy lock: free ({})\n", lock.where);
        case State::kIncomplete:
            return fmt::format(
                "deploy lock: {} exists but names no holder: a pdctl is taking it right now, or "
                "one died doing so\n  if no pdctl is deploying: pdctl lock release --force\n",
                lock.where);
        case State::kHeld:
            break;
    }
    const auto& holder = lock.observed.holder;
    return fmt::format("deploy lock: {} by {}\n  at {} · pdctl {} · run {}\n  {}\n",
                       lock.liveness == Liveness::kDead ? "STALE, held" : "held",
                       state::lock::describe_holder(holder, now_epoch), lock.where, holder.version,
                       holder.token, liveness_text(holder, lock.liveness));
}

json lock_status_to_json(const LockView& lock, long long now_epoch) {
    return {{"cluster", lock.cluster},
            {"coordinator", lock.coordinator},
            {"path", lock.path},
            {"state", state_name(lock)},
            {"holder", holder_or_null(lock, now_epoch)}};
}

std::string lock_already_free_message(const LockView& lock) {
    return fmt::format("deploy lock: already free ({})", lock.where);
}

std::string lock_released_own_message(const LockView& lock, long long now_epoch) {
    return fmt::format("deploy lock released (it was yours: {})",
                       state::lock::describe_holder(lock.observed.holder, now_epoch));
}

json lock_release_to_json(const LockView& lock, const std::string& message, bool released, bool broken,
                          long long now_epoch) {
    return {{"cluster", lock.cluster},
            {"path", lock.path},
            {"released", released},
            {"broken", broken},
            {"holder", holder_or_null(lock, now_epoch)},
            {"message", message}};
}

}  // namespace pdctl::report
