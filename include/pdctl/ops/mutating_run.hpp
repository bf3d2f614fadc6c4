#pragma once
// What every verb that changes the cluster (start, stop, restart) does around its engine call: take
// the deploy lock before anything touches a unit, journal every event, write the journal record, and
// release the lock — after success, failure, an exception or Ctrl-C alike.

#include <chrono>
#include <functional>
#include <string>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// `unreachable`: kGoOnUnlocked for `stop` only. Without the lock the run says so loudly (stderr and a
// note in its output and record), its record waits on this machine until the coordinator answers
// (state/journal_writer.hpp), and its exit code is 14 (kStoppedWithoutLock) where it would have been 0
// or 3: what could be reached was stopped, and nothing guarded it against another run.
ExitCode run_mutating_verb(
    const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
    const std::function<ExitCode(engine::Reporter&)>& action,
    state::WhenCoordinatorUnreachable unreachable = state::WhenCoordinatorUnreachable::kRefuse);

// The same, for a verb that records lines of its own beside the events (`heal`: which group it healed
// and why, which its crash-loop back-off reads back).
ExitCode run_journaled_verb(
    const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
    const std::function<ExitCode(JournalingReporter&)>& action,
    state::WhenCoordinatorUnreachable unreachable = state::WhenCoordinatorUnreachable::kRefuse);

// How a verb that copies to the nodes (push, pull) ended: what its exit code and record follow from.
struct CopyOutcome {
    bool all_in_place = false;     // every file or image is where it belongs
    bool any_unreachable = false;  // some node could not be reached
    std::chrono::milliseconds elapsed{0};
    std::string message;  // the view's summary line
};

// run_mutating_verb for push and pull: nothing on the terminal but their own view, Ctrl-C caught, and
// the exit code from `copy`'s outcome: interrupted, ok, then unreachable before failed, as everywhere
// (docs/exit-codes.md): the operator fixes the link, then runs it again.
ExitCode run_copy_verb(const Deployment& deployment, const std::string& verb,
                       const std::function<CopyOutcome(engine::Reporter& journal)>& copy);

// A run of one line, for an act that is not a verb's run but must be audited (`lock release --force`):
// its record, with `message` as the outcome, appended to the journal.
void journal_audit(const Deployment& deployment, const std::string& verb, const std::string& message);

}  // namespace pdctl::ops
