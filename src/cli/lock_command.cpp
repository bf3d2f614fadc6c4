// pdctl lock status | release [--force]: the deploy lock on the coordinator node.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <random>

#include "pdctl/report/journaling_reporter.hpp"
#include "pdctl/report/lock_view.hpp"
#include "pdctl/report/silent_reporter.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/lock.hpp"
#include "pdctl/state/operator_identity.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

using state::lock::Liveness;
using state::lock::State;

struct LockReleaseOptions {
    bool force = false;
};

state::lock::Observed read_lock(exec::Executor& executor, const config::Cluster& cluster) {
    const auto& coordinator = state::coordinator_node(cluster);
    const auto answer =
        executor.run(coordinator, state::lock::status_command(state::lock_directory(cluster)));
    if (!answer.transport_error.empty())
        throw Failure(ExitCode::kUnreachable,
                      fmt::format("{} ({}), the coordinator, is unreachable: {}", coordinator.name,
                                  coordinator.address, answer.transport_error));
    return state::lock::parse_status(answer);
}

// The lock as the coordinator has it now, and whether its holder's pdctl still runs as far as `me`
// can tell.
report::LockView look_at_lock(const Context& context, const state::OperatorIdentity& me) {
    report::LockView lock;
    lock.observed = read_lock(*context.executor, context.cluster);
    lock.liveness = state::holder_liveness(lock.observed.holder, me);
    lock.cluster = context.cluster.name;
    lock.coordinator = state::coordinator_node(context.cluster).name;
    lock.path = state::lock_directory(context.cluster);
    lock.where = state::lock_location(context.cluster);
    return lock;
}

// A broken lock is worth an audit line: who broke whose lock, when.
void journal_forced_release(exec::Executor& executor, const Context& context,
                            const state::OperatorIdentity& me, const std::string& what) {
    report::SilentReporter silent;
    report::JournalingReporter journal(
        silent, context.redactor,
        {state::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}()),
         "lock release --force", me.who(), context.cluster.name, context.plan.fingerprint, PDCTL_VERSION});
    state::write_journal(executor, context.cluster, journal.finish(ExitCode::kOk, what));
}

ExitCode lock_status_command(const GlobalOptions& global) {
    auto context = load_context(global);
    const auto lock = look_at_lock(context, state::current_operator());
    if (global.json)
        fmt::print("{}\n",
                   context.redactor.redact(report::lock_status_to_json(lock, state::epoch_now()).dump(2)));
    else
        fmt::print("{}", context.redactor.redact(report::render_lock_status_text(lock, state::epoch_now())));
    return ExitCode::kOk;
}

ExitCode lock_release_command(const GlobalOptions& global, const LockReleaseOptions& options) {
    auto context = load_context(global);
    auto& executor = *context.executor;
    const auto me = state::current_operator();
    const auto lock = look_at_lock(context, me);
    const auto& observed = lock.observed;
    const auto liveness = lock.liveness;
    const auto print = [&](const std::string& message, bool released, bool broken) {
        const std::string text =
            global.json
                ? report::lock_release_to_json(lock, message, released, broken, state::epoch_now()).dump(2)
                : message;
        fmt::print("{}\n", context.redactor.redact(text));
    };

    if (observed.state == State::kFree) {
        print(report::lock_already_free_message(lock), false, false);
        return ExitCode::kOk;
    }
    const bool mine = observed.state == State::kHeld &&
                      state::lock::may_release_without_force(observed.holder, me.user, me.host);
    // Your own lock whose pdctl still runs here (another terminal): releasing it would let a second run
    // in under a deploy that is still going, so that takes --force like anyone else's.
    if (mine && liveness == Liveness::kAlive && !options.force)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("deploy lock held by {}: its pdctl is still running on this machine",
                        state::lock::describe_holder(observed.holder, state::epoch_now())),
            fmt::format("end that run (Ctrl-C in its terminal, or kill -INT {}); `pdctl lock release "
                        "--force` removes the lock anyway",
                        observed.holder.pid));
    if (!mine && !options.force) {
        if (observed.state == State::kIncomplete)
            throw Failure(ExitCode::kLocked,
                          state::lock::locked_message(observed, liveness, lock.where, state::epoch_now()),
                          "`pdctl lock release --force` removes it");
        throw Failure(ExitCode::kLocked,
                      fmt::format("deploy lock held by {}{}; only {} may release it without --force",
                                  state::lock::describe_holder(observed.holder, state::epoch_now()),
                                  liveness == Liveness::kDead ? " (STALE: its pdctl is gone)" : "",
                                  observed.holder.who()),
                      "`pdctl lock release --force` breaks it; tell " + observed.holder.who() + " first");
    }

    // The token read above: if the lock changed hands since, the new holder's lock stays.
    const auto answer = executor.run(state::coordinator_node(context.cluster),
                                     state::lock::release_command(lock.path, observed.holder.token));
    const auto result = state::lock::parse_release(answer);
    if (result.outcome == state::lock::ReleaseOutcome::kChangedHands)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("the deploy lock changed hands meanwhile; it is now held by {} and was left alone",
                        state::lock::describe_holder(result.current, state::epoch_now())),
            "`pdctl lock status`, then release again if you mean to");
    if (result.outcome == state::lock::ReleaseOutcome::kAlreadyFree) {
        print(report::lock_already_free_message(lock), false, false);
        return ExitCode::kOk;
    }
    if (mine) {
        print(report::lock_released_own_message(lock, state::epoch_now()), true, false);
        return ExitCode::kOk;
    }
    const std::string message = report::lock_broken_message(lock, state::epoch_now());
    journal_forced_release(executor, context, me, message);
    print(message, true, true);
    return ExitCode::kOk;
}

}  // namespace

void add_lock_verb(CLI::App& app, Verbs& verbs) {
    auto* lock = app.add_subcommand("lock", "the deploy lock on the coordinator node: status, release");
    lock->require_subcommand(1);
    auto* status = lock->add_subcommand("status", "who holds the deploy lock, since when, for which verb");
    auto options = std::make_shared<LockReleaseOptions>();
    auto* release =
        lock->add_subcommand("release", "remove the deploy lock: your own, or anyone's with --force");
    release->add_flag("--force", options->force, "break a lock held by another operator, or a stale one");
    status->fallthrough();
    release->fallthrough();
    verbs.add(status, lock_status_command);
    verbs.add(release,
              [options](const GlobalOptions& global) { return lock_release_command(global, *options); });
}

}  // namespace pdctl::cli
