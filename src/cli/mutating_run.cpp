#include "mutating_run.hpp"

#include <random>

#include "pdctl/engine/clock.hpp"
#include "pdctl/report/journaling_reporter.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::cli {

ExitCode run_mutating_verb(const Context& context, exec::Executor& executor, engine::Reporter& reporter,
                           const std::string& verb,
                           const std::function<ExitCode(engine::Reporter&)>& action) {
    const auto me = state::current_operator();
    const std::string run_id =
        state::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}());
    state::DeployLock lock(executor, context.cluster, me, verb, run_id);
    // Ctrl-C while the lock was being taken: nothing was touched yet, nothing to journal.
    if (engine::interrupted()) return ExitCode::kInterrupted;

    report::JournalingReporter journal(
        reporter, context.redactor,
        {run_id, verb, me.who(), context.cluster.name, context.plan.fingerprint, PDCTL_VERSION});
    ExitCode code = ExitCode::kInternal;
    try {
        code = action(journal);
    } catch (const Failure& failure) {
        journal.journal_note(failure.what());
        state::write_journal(executor, context.cluster, journal.finish(failure.code()));
        throw;  // the lock is released by its destructor
    } catch (const std::exception& error) {
        journal.journal_note(std::string("internal error: ") + error.what());
        state::write_journal(executor, context.cluster, journal.finish(ExitCode::kInternal));
        throw;
    }
    // Still under the lock: journal appends never interleave.
    state::write_journal(executor, context.cluster, journal.finish(code));
    lock.release();
    return code;
}

}  // namespace pdctl::cli
