// pdctl lock status | release [--force]: the deploy lock on the coordinator node.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.hpp"
#include "deploy_lock.hpp"
#include "journal_writer.hpp"
#include "operator_identity.hpp"
#include "pdctl/engine/coordinator.hpp"
#include "pdctl/engine/journal.hpp"
#include "pdctl/engine/lock.hpp"
#include "pdctl/report/journaling_reporter.hpp"

namespace pdctl::cli {
namespace {

using engine::lock::Liveness;
using engine::lock::Observed;
using engine::lock::State;
using nlohmann::json;

Observed read_lock(exec::Executor& executor, const config::Cluster& cluster) {
    const auto& coordinator = engine::coordinator_node(cluster);
    const auto answer = executor.run(coordinator, engine::lock::status_command(lock_directory(cluster)));
    if (!answer.transport_error.empty())
        throw Failure(ExitCode::kUnreachable,
                      fmt::format("{} ({}), the coordinator, is unreachable: {}", coordinator.name,
                                  coordinator.address, answer.transport_error));
    return engine::lock::parse_status(answer);
}

const char* state_name(const Observed& observed, Liveness liveness) {
    if (observed.state == State::kFree) return "free";
    if (observed.state == State::kIncomplete) return "incomplete";
    return liveness == Liveness::kDead ? "stale" : "held";
}

json holder_json(const engine::lock::Holder& holder, Liveness liveness) {
    return {{"who", holder.who()},
            {"user", holder.user},
            {"host", holder.host},
            {"pid", holder.pid},
            {"since", holder.since},
            {"age_seconds", holder.since_epoch > 0 ? epoch_now() - holder.since_epoch : 0},
            {"verb", holder.verb},
            {"version", holder.version},
            {"run", holder.token},
            // null: the holder is on another host, whose processes pdctl cannot see.
            {"running", liveness == Liveness::kUnknown ? json(nullptr) : json(liveness == Liveness::kAlive)}};
}

std::string liveness_text(const engine::lock::Holder& holder, Liveness liveness) {
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
void journal_forced_release(exec::Executor& executor, const Context& context, const OperatorIdentity& me,
                            const std::string& what) {
    class Silent : public report::Reporter {
      public:
        void run_begin(const std::string&, const plan::Plan&) override {}
        void stage_begin(const std::string&, const plan::Stage&) override {}
        void stage_skipped(const plan::Stage&, const std::string&) override {}
        void unit_done(const std::string&, const plan::Unit&, const std::string&) override {}
        void gate_waiting(const plan::Stage&, const std::string&, report::Duration) override {}
        void stage_ready(const plan::Stage&, report::Duration) override {}
        void stage_failed(const report::StageFailure&, report::Duration) override {}
        void note(const std::string&) override {}
        void run_end(const report::RunSummary&) override {}
    } silent;
    report::JournalingReporter journal(
        silent, context.redactor,
        {engine::journal::new_run_id(std::chrono::system_clock::now(), std::random_device{}()),
         "lock release --force", me.who(), context.cluster.name, context.plan.fingerprint, PDCTL_VERSION});
    write_journal(executor, context.cluster, journal.finish(ExitCode::kOk, what));
}

}  // namespace

ExitCode lock_status_command(const GlobalOptions& global) {
    auto context = load_context(global);
    auto& executor = require_executor(context);
    const auto observed = read_lock(executor, context.cluster);
    const auto liveness = holder_liveness(observed.holder, current_operator());
    const std::string where = lock_location(context.cluster);
    if (global.json) {
        json document = {{"cluster", context.cluster.name},
                         {"coordinator", engine::coordinator_node(context.cluster).name},
                         {"path", lock_directory(context.cluster)},
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
                               engine::lock::describe_holder(observed.holder, epoch_now()), where,
                               observed.holder.version, observed.holder.token,
                               liveness_text(observed.holder, liveness));
            break;
    }
    fmt::print("{}", context.redactor.redact(text));
    return ExitCode::kOk;
}

ExitCode lock_release_command(const GlobalOptions& global, const LockReleaseOptions& options) {
    auto context = load_context(global);
    auto& executor = require_executor(context);
    const auto me = current_operator();
    const auto observed = read_lock(executor, context.cluster);
    const auto liveness = holder_liveness(observed.holder, me);
    const std::string where = lock_location(context.cluster);
    const auto print = [&](const std::string& message, bool released, bool broken) {
        if (global.json) {
            json document = {{"cluster", context.cluster.name},
                             {"path", lock_directory(context.cluster)},
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
                      engine::lock::may_release_without_force(observed.holder, me.user, me.host);
    // Your own lock whose pdctl still runs here (another terminal): releasing it would let a second run
    // in under a deploy that is still going, so that takes --force like anyone else's.
    if (mine && liveness == Liveness::kAlive && !options.force)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("deploy lock held by {}: its pdctl is still running on this machine",
                        engine::lock::describe_holder(observed.holder, epoch_now())),
            fmt::format("end that run (Ctrl-C in its terminal, or kill -INT {}); `pdctl lock release "
                        "--force` removes the lock anyway",
                        observed.holder.pid));
    if (!mine && !options.force) {
        if (observed.state == State::kIncomplete)
            throw Failure(ExitCode::kLocked,
                          engine::lock::locked_message(observed, liveness, where, epoch_now()),
                          "`pdctl lock release --force` removes it");
        throw Failure(ExitCode::kLocked,
                      fmt::format("deploy lock held by {}{}; only {} may release it without --force",
                                  engine::lock::describe_holder(observed.holder, epoch_now()),
                                  liveness == Liveness::kDead ? " (STALE: its pdctl is gone)" : "",
                                  observed.holder.who()),
                      "`pdctl lock release --force` breaks it; tell " + observed.holder.who() + " first");
    }

    // The token read above: if the lock changed hands since, the new holder's lock stays.
    const auto answer =
        executor.run(engine::coordinator_node(context.cluster),
                     engine::lock::release_command(lock_directory(context.cluster), observed.holder.token));
    const auto result = engine::lock::parse_release(answer);
    if (result.outcome == engine::lock::ReleaseOutcome::kChangedHands)
        throw Failure(
            ExitCode::kLocked,
            fmt::format("the deploy lock changed hands meanwhile; it is now held by {} and was left alone",
                        engine::lock::describe_holder(result.current, epoch_now())),
            "`pdctl lock status`, then release again if you mean to");
    if (result.outcome == engine::lock::ReleaseOutcome::kAlreadyFree) {
        print(fmt::format("deploy lock: already free ({})", where), false, false);
        return ExitCode::kOk;
    }
    if (mine) {
        print(fmt::format("deploy lock released (it was yours: {})",
                          engine::lock::describe_holder(observed.holder, epoch_now())),
              true, false);
        return ExitCode::kOk;
    }
    const std::string whose = observed.state == State::kHeld
                                  ? engine::lock::describe_holder(observed.holder, epoch_now())
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
