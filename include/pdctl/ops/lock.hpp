#pragma once
// `pdctl lock status` and `pdctl lock release`: the deploy lock on the coordinator node, and who may
// remove it (your own lock, unless its pdctl still runs; anyone's with --force, journaled).

#include <string>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/state/lock.hpp"

namespace pdctl::ops {

struct LockView {
    std::string cluster;
    std::string coordinator;  // the node that keeps the lock
    std::string path;         // the lock directory on it
    std::string where;        // "n1:/var/lib/pdctl/demo/lock", as the messages name it
    state::lock::Observed observed;
    state::lock::Liveness liveness = state::lock::Liveness::kUnknown;
    long long read_at = 0;  // epoch seconds when it was read: what the holder's age is measured to
};

// The lock as the coordinator has it now, and whether its holder's pdctl still runs as far as this
// process can tell. Throws Failure (unreachable) when the coordinator cannot be reached.
LockView look_at_lock(const Deployment& deployment);

enum class LockReleased { kAlreadyFree, kOwn, kBroken };
struct LockRelease {
    LockView lock;  // as it was before the release
    LockReleased what = LockReleased::kAlreadyFree;
    std::string broken;  // kBroken: who broke whose lock, as the journal records it
    long long at = 0;    // epoch seconds when the release ended
};
// Removes the lock when the policy allows, else throws Failure (locked) saying why and how to go on.
// Only the token read first is released: a lock that changed hands since stays.
LockRelease release_lock(const Deployment& deployment, bool force);

// "broke the deploy lock held by ... at n1:/...": the journal's record of who broke whose lock.
std::string lock_broken_message(const LockView& lock, long long now_epoch);

}  // namespace pdctl::ops
