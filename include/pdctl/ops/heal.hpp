#pragma once
// `pdctl heal`: one pass of putting the cluster back to what the config says, for a cron job or a
// systemd timer (docs/heal.md). It reads the status as `status` does, decides with plan_heal
// (ops/heal_plan.hpp), and carries out each action as a run of its own under the deploy lock, journaled
// under the verb `heal`: a group's restart (rolling through the router's worker API where it can), the
// router's worker list put right, or a crash-looping group left alone with its last log lines.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/heal_plan.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct HealRequest {
    HealPolicy policy;
    bool dry_run = false;  // decide and say, touch nothing
    // `--watch`: a pass every this long, on the deployment's clock, until Ctrl-C; none: one pass.
    std::optional<std::chrono::milliseconds> watch;
};

struct HealStep {
    HealAction action;
    ExitCode code = ExitCode::kOk;  // of its run (kOk for wait/blind/give-up)
    std::string outcome;            // "healed in 21.4s", "failed: ...", "would restart", ...
    long long elapsed_ms = 0;
    std::vector<std::string> log_tail;  // give-up: the broken rank's last lines
};

struct HealReport {
    std::string cluster;
    bool dry_run = false;
    // `heal pause` holds every pass until it ends: nothing was looked at or touched.
    std::optional<state::intent::HealPause> paused;
    std::vector<HealStep> steps;
    std::vector<std::string> notes;  // the journal could not be read, ...
    ExitCode code = ExitCode::kOk;
};

// `heal pause`: every pass until `until_epoch_ms` reports the pause and touches nothing. Journaled, under
// the deploy lock. Throws Failure when the coordinator cannot record it.
void pause_heal(const Deployment& deployment, long long until_epoch_ms, const std::string& reason,
                engine::Reporter& screen);
// `heal resume`: ends a pause; returns false when there was none.
bool resume_heal(const Deployment& deployment, engine::Reporter& screen);

// One pass. Throws Failure for what ends it before any action: a lock another run holds (kLocked, the
// holder named), a coordinator that does not answer (kUnreachable), a status that cannot be read. A
// lock taken by another run after that ends the pass at the action that meets it, touching nothing more.
HealReport run_heal_pass(const Deployment& deployment, const HealRequest& request, engine::Reporter& screen);

// What a caller hears of each pass: its report, or (watching) the Failure that ended it.
struct HealWatchHooks {
    std::function<void(const HealReport&)> pass;
    std::function<void(const Failure&)> failed;
};

// `pdctl heal [--watch]`: one pass, whose code it returns (a Failure is thrown on); or, with
// `request.watch`, a pass every interval on the deployment's clock until Ctrl-C (exit kInterrupted). A
// watched pass that fails (a held lock, an unreadable status) is handed to `hooks.failed` and the next
// one comes at its time.
ExitCode run_heal(const Deployment& deployment, const HealRequest& request, engine::Reporter& screen,
                  const HealWatchHooks& hooks);

}  // namespace pdctl::ops
