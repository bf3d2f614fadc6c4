#pragma once
// The deploy lock: one directory, <state_dir>/<cluster>/lock on the coordinator node, created with an
// atomic `mkdir` by the operator who wins, with a `holder` file inside saying who, where and why.
// Pure: command builders and parsers. The CLI runs the commands and decides (state/deploy_lock.cpp).

#include <string>

#include "pdctl/exec/executor.hpp"

namespace pdctl::state::lock {

// What the holder wrote into <lock>/holder, as key=value lines.
struct Holder {
    std::string user;
    std::string host;
    int pid = 0;
    // The start time of `pid` (/proc/PID/stat field 22) on `host`: a pid reused by another process
    // after the holder died must not make a stale lock look alive.
    long long pid_start = 0;
    std::string since;  // UTC, 2026-11-29T08:12:03Z
    long long since_epoch = 0;
    std::string verb;     // start | stop | restart
    std::string version;  // pdctl version of the holder
    // The run id of the holder. Release removes the lock only while it still carries this token, so a
    // run whose lock was broken with --force never removes the lock of the operator who took it next.
    std::string token;

    std::string who() const { return user + "@" + host; }
    bool empty() const { return user.empty() && host.empty() && token.empty(); }
};

enum class State {
    kFree,
    kHeld,
    // The directory exists but has no readable holder: an operator is between its mkdir and writing
    // the holder, or a run died there. Only --force releases it.
    kIncomplete,
};

struct Observed {
    State state = State::kFree;
    Holder holder;  // when kHeld
};

// Whether the holder's pdctl still runs, as far as this machine can tell.
enum class Liveness {
    kAlive,
    kDead,     // same host, and its pid is gone (or is another process now): the lock is stale
    kUnknown,  // another host: pdctl cannot look at its processes
};

// <cluster_dir>/lock
std::string lock_path(const std::string& cluster_dir);

// key=value lines; newlines inside values become spaces so one value can never forge another key.
std::string holder_text(const Holder& holder);
Holder parse_holder(const std::string& text);

// Takes the lock for `me` (the holder file goes on stdin) or reports who holds it. Never waits for a
// lock to be released: only for the holder file of an operator that won the mkdir a moment ago.
exec::Command acquire_command(const std::string& lock_dir, const Holder& me);
// Removes the lock if it still carries `token`; an empty token removes whatever holds it (--force,
// or a lock without a readable holder).
exec::Command release_command(const std::string& lock_dir, const std::string& token);
exec::Command status_command(const std::string& lock_dir);

struct AcquireResult {
    bool acquired = false;
    Observed current;  // who holds it, when not acquired
};
// Throws Failure: kUnreachable for a transport error, kInternal when the script itself failed.
AcquireResult parse_acquire(const exec::CommandResult& result);

enum class ReleaseOutcome {
    kReleased,
    kAlreadyFree,
    kChangedHands,  // the lock carries another token now; it was left alone
};
struct ReleaseResult {
    ReleaseOutcome outcome = ReleaseOutcome::kReleased;
    Holder current;  // when kChangedHands
};
ReleaseResult parse_release(const exec::CommandResult& result);
Observed parse_status(const exec::CommandResult& result);

// "alice@jump1 (pid 4242, start, since 2026-11-29T08:12:03Z, 3m12s ago)"; `now_epoch` 0 leaves out the age.
std::string describe_holder(const Holder& holder, long long now_epoch);

// The error a refused operator sees, and its hint (`pdctl lock status`, `pdctl lock release --force`;
// a stale lock still needs --force).
std::string locked_message(const Observed& current, Liveness liveness, const std::string& where,
                           long long now_epoch);
std::string locked_hint(const Observed& current, Liveness liveness);

// May `user@host` release `holder` without --force? Only the operator who took it (same user and
// host), whatever became of its pid.
bool may_release_without_force(const Holder& holder, const std::string& user, const std::string& host);

}  // namespace pdctl::state::lock
