// pdctl lock status | release [--force]: the deploy lock on the coordinator node.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.hpp"
#include "pdctl/report/journaling_reporter.hpp"
#include "pdctl/report/silent_reporter.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/state/deploy_lock.hpp"
#include "pdctl/state/journal.hpp"
#include "pdctl/state/journal_writer.hpp"
#include "pdctl/state/lock.hpp"
#include "pdctl/state/operator_identity.hpp"

namespace pdctl::cli {
namespace {

using nlohmann::json;
using state::lock::Liveness;
using state::lock::Observed;
using state::lock::State;

Observed read_lock(exec::Executor& executor, const config::Cluster& cluster) {
    const auto& coordinator = state::coordinator_node(cluster);
    const auto answer =
        executor.run(coordinator, state::lock::status_command(state::lock_directory(cluster)));
    if (!answer.transport_error.empty())
        throw Failure(ExitCode::kUnreachable,
                      fmt::format("{} ({}), the coordinator, is unreachable: {}", coordinator.name,
                                  coordinator.address, answer.transport_error));
    return state::lock::parse_status(answer);
}

const char* state_name(const Observed& observed, Liveness liveness) {
    if (observed.state == State::kFree) return "free";
    if (observed.state == State::kIncomplete) return "incomplete";
    return liveness == Liveness::kDead ? "stale" : "held";
}

json holder_json(const state::lock::Holder& holder, Liveness liveness) {
    return {{"who", holder.who()},
            {"user", holder.user},
            {"host", holder.host},
            {"pid", holder.pid},
            {"since", holder.since},
            {"age_seconds", holder.since_epoch > 0 ? state::epoch_now() - holder.since_epoch : 0},
            {"verb", holder.verb},
            {"version", holder.version},
            {"run", holder.token},
            // null: the holder is on another host, whose processes pdctl cannot see.
            {"running", liveness == Liveness::kUnknown ? json(nullptr) : json(liveness == Liveness::kAlive)}};
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

}  // namespace

ExitCode lock_status_command(const GlobalOptions& global) {
    auto context = load_context(global);
    auto& executor = *context.executor;
    const auto observed = read_lock(executor, context.cluster);
    const auto liveness = state::holder_liveness(observed.holder, state::current_operator());
    const std::string where = state::lock_location(context.cluster);
    if (global.json) {
        json document = {{"cluster", context.cluster.name},
                         {"coordinator", state::coordinator_node(context.cluster).name},
                         {"path", state::lock_directory(context.cluster)},
                         {"state", state_name(observed, liveness)},
                         {"holder", nullptr}};
        if (observed.state == State::kHeld) document["holder"] = holder_json(observed.holder, liveness);
        fmt::print("{}\n", context.redactor.redact(document.dump(2)));
        return ExitCode::kOk;
    }
    std::string text;
    switch (observed.state) {
        case State::kFree:
            text = fmt::format("deploy lock: free ({})\n", where);
            break;
        case State::kIncomplete:
            text = fmt::format(
                "deploy lock: {} exists but names no holder: a pdctl is taking it right now, or "
                "one died doing so\n  if no pdctl is deploying: pdctl lock release --force\n",
                where);
            break;
        case State::kHeld:
            text = fmt::format("deploy lock: {} by {}\n  at {} · pdctl {} · run {}\n  {}\n",
                               liveness == Liveness::kDead ? "STALE, held" : "held",
                               state::lock::describe_holder(observed.holder, state::epoch_now()), where,
                               observed.holder.version, observed.holder.token,
                               liveness_text(observed.holder, liveness));
            break;
    }
    fmt::print("{}", context.redactor.redact(text));
    return ExitCode::kOk;
}

ExitCode lock_release_command(const GlobalOptions& global, const LockReleaseOptions& options) {
    auto context = load_context(global);
    auto& executor = *context.executor;
    const auto me = state::current_operator();
    const auto observed = read_lock(executor, context.cluster);
    const auto liveness = state::holder_liveness(observed.holder, me);
    const std::string where = state::lock_location(context.cluster);
    const auto print = [&](const std::string& message, bool released, bool broken) {
        if (global.json) {
            json document = {{"cluster", context.cluster.name},
                             {"path", state::lock_directory(context.cluster)},
                             {"released", released},
                             {"broken", broken},
                             {"holder", nullptr},
                             {"message", message}};
            if (observed.state == State::kHeld) document["holder"] = holder_json(observed.holder, liveness);
            fmt::print("{}\n", context.redactor.redact(document.dump(2)));
        } else {
            fmt::print("{}\n", context.redactor.redact(message));
        }
    };

    if (observed.state == State::kFree) {
        print(fmt::format("deploy lock: already free ({})", where), false, false);
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
                          state::lock::locked_message(observed, liveness, where, state::epoch_now()),
                          "`pdctl lock release --force` removes it");
        throw Failure(ExitCode::kLocked,
                      fmt::format("deploy lock held by {}{}; only {} may release it without --force",
                                  state::lock::describe_holder(observed.holder, state::epoch_now()),
                                  liveness == Liveness::kDead ? " (STALE: its pdctl is gone)" : "",
                                  observed.holder.who()),
                      "`pdctl lock release --force` breaks it; tell " + observed.holder.who() + " first");
    }

    // The token read above: if the lock changed hands since, the new holder's lock stays.
    const auto answer = executor.run(
        state::coordinator_node(context.cluster),
        state::lock::release_command(state::lock_directory(context.cluster), observed.holder.token));
    const auto result = state::lock::parse_release(answer);
    if (result.outcome == state::lock::ReleaseOutcome::kChangedHands)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("the deploy lock changed hands meanwhile; it is now held by {} and was left alone",
                        state::lock::describe_holder(result.current, state::epoch_now())),
            "`pdctl lock status`, then release again if you mean to");
    if (result.outcome == state::lock::ReleaseOutcome::kAlreadyFree) {
        print(fmt::format("deploy lock: already free ({})", where), false, false);
        return ExitCode::kOk;
    }
    if (mine) {
        print(fmt::format("deploy lock released (it was yours: {})",
                          state::lock::describe_holder(observed.holder, state::epoch_now())),
              true, false);
        return ExitCode::kOk;
    }
    const std::string whose = observed.state == State::kHeld
                                  ? state::lock::describe_holder(observed.holder, state::epoch_now())
                                  : "nobody (it named no holder)";
    std::string message = fmt::format("broke the deploy lock held by {} at {}", whose, where);
    if (liveness == Liveness::kAlive)
        message += fmt::format("; warning: its pdctl (pid {}) is still running", observed.holder.pid);
    else if (liveness == Liveness::kUnknown && observed.state == State::kHeld)
        message += fmt::format("; its run on {} may still be going", observed.holder.host);
    journal_forced_release(executor, context, me, message);
    print(message, true, true);
    return ExitCode::kOk;
}

}  // namespace pdctl::cli
