#pragma once
// What every verb that changes the cluster (start, stop, restart) does around its engine call: take
// the deploy lock before anything touches a unit, journal every event, write the journal record, and
// release the lock — after success, failure, an exception or Ctrl-C alike.

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

// A run of one line, for an act that is not a verb's run but must be audited (`lock release --force`):
// its record, with `message` as the outcome, appended to the journal.
void journal_audit(const Deployment& deployment, const std::string& verb, const std::string& message);

}  // namespace pdctl::ops
