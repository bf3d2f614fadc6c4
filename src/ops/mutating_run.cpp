#include "pdctl/ops/mutating_run.hpp"

#include <random>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::ops {

ExitCode run_mutating_verb(const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
                           const std::function<ExitCode(engine::Reporter&)>& action) {
    auto& executor = *deployment.executor;
    const auto me = state::current_operator();
    const std::string run_id =
        state::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}());
    state::DeployLock lock(executor, deployment.cluster, me, verb, run_id);
    // Ctrl-C while the lock was being taken: nothing was touched yet, nothing to journal.
    if (engine::interrupted()) return ExitCode::kInterrupted;

    JournalingReporter journal(
        reporter, deployment.redactor,
        {run_id, verb, me.who(), deployment.cluster.name, deployment.plan.fingerprint, PDCTL_VERSION});
    ExitCode code = ExitCode::kInternal;
    try {
        code = action(journal);
    } catch (const Failure& failure) {
        journal.journal_note(failure.what());
        state::write_journal(executor, deployment.cluster, journal.finish(failure.code()));
        throw;  // the lock is released by its destructor
    } catch (const std::exception& error) {
        journal.journal_note(std::string("internal error: ") + error.what());
        state::write_journal(executor, deployment.cluster, journal.finish(ExitCode::kInternal));
        throw;
    }
    // Still under the lock: journal appends never interleave.
    state::write_journal(executor, deployment.cluster, journal.finish(code));
    lock.release();
    return code;
}

void journal_audit(const Deployment& deployment, const std::string& verb, const std::string& message) {
    engine::SilentReporter unseen;  // a record without events: nothing to show
    JournalingReporter journal(
        unseen, deployment.redactor,
        {state::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}()), verb,
         state::current_operator().who(), deployment.cluster.name, deployment.plan.fingerprint,
         PDCTL_VERSION});
    state::write_journal(*deployment.executor, deployment.cluster, journal.finish(ExitCode::kOk, message));
}

}  // namespace pdctl::ops
