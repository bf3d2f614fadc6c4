#include "pdctl/ops/mutating_run.hpp"

#include <spdlog/spdlog.h>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/silent_reporter.hpp"
#include "pdctl/ops/config_history.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::ops {

ExitCode run_mutating_verb(const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
                           const std::function<ExitCode(engine::Reporter&)>& action,
                           state::WhenCoordinatorUnreachable unreachable) {
    return run_journaled_verb(
        deployment, reporter, verb, [&](JournalingReporter& journal) { return action(journal); },
        unreachable);
}

ExitCode run_journaled_verb(const Deployment& deployment, engine::Reporter& reporter, const std::string& verb,
                            const std::function<ExitCode(JournalingReporter&)>& action,
                            state::WhenCoordinatorUnreachable unreachable) {
    auto& executor = *deployment.executor;
    const auto me = state::current_operator();
    const std::string run_id = state::journal::new_run_id();
    state::DeployLock lock(executor, deployment.cluster, me, verb, run_id, unreachable);
    // Ctrl-C while the lock was being taken: nothing was touched yet, nothing to journal.
    if (engine::interrupted()) return ExitCode::kInterrupted;

    // Before anything starts from it, so that an interrupted run's config is kept too.
    const std::string config_id = lock.held() && keeps_config(verb) ? keep_config(deployment) : "";
    JournalingReporter journal(reporter, deployment.redactor,
                               {run_id, verb, me.who(), deployment.cluster.name, deployment.plan.fingerprint,
                                PDCTL_VERSION, config_id});
    if (!lock.held()) {
        const std::string unlocked =
            lock.why_not_held() + ": " + verb +
            " goes on WITHOUT the deploy lock, stopping every unit it can reach; nothing keeps another "
            "run from acting at the same time. The journal record waits on this machine until the "
            "coordinator answers (exit 14)";
        spdlog::error("{}", unlocked);
        journal.journal_note(unlocked);
    }
    ExitCode code = ExitCode::kInternal;
    try {
        code = action(journal);
        if (!lock.held() && (code == ExitCode::kOk || code == ExitCode::kUnreachable))
            code = ExitCode::kStoppedWithoutLock;
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
    if (!lock.held() && !lock.why_not_held().empty())
        spdlog::error(
            "{} ran without the deploy lock ({}); once it answers, `pdctl {}` again reaches what "
            "this run could not, and `pdctl status` shows what is left",
            verb, lock.why_not_held(), verb);
    return code;
}

ExitCode run_copy_verb(const Deployment& deployment, const std::string& verb,
                       const std::function<CopyOutcome(engine::Reporter& journal)>& copy) {
    engine::SilentReporter silent;
    engine::install_interrupt_handlers();
    return run_mutating_verb(deployment, silent, verb, [&](engine::Reporter& journal) {
        journal.run_begin(verb, deployment.plan);
        const auto outcome = copy(journal);
        engine::RunSummary summary;
        summary.verb = verb;
        summary.elapsed = outcome.elapsed;
        summary.code = engine::interrupted()     ? ExitCode::kInterrupted
                       : outcome.all_in_place    ? ExitCode::kOk
                       : outcome.any_unreachable ? ExitCode::kUnreachable
                                                 : ExitCode::kStageFailed;
        summary.message = outcome.message;
        journal.run_end(summary);
        return summary.code;
    });
}

void journal_audit(const Deployment& deployment, const std::string& verb, const std::string& message) {
    engine::SilentReporter unseen;  // a record without events: nothing to show
    JournalingReporter journal(unseen, deployment.redactor,
                               {state::journal::new_run_id(), verb, state::current_operator().who(),
                                deployment.cluster.name, deployment.plan.fingerprint, PDCTL_VERSION, ""});
    state::write_journal(*deployment.executor, deployment.cluster, journal.finish(ExitCode::kOk, message));
}

}  // namespace pdctl::ops
