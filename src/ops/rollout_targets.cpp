// Where `rollback`, `rollout resume` and `rollout abort` go: a kept config, opened as a deployment to
// roll out (ops/rollout.hpp).

#include <fmt/format.h>

#include <set>

#include "pdctl/ops/config_history.hpp"
#include "pdctl/ops/intent_store.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/ops/rollout.hpp"

namespace pdctl::ops {

RollbackTarget rollback_target(const Deployment& deployment, const std::string& selector) {
    std::string chosen = selector;
    if (chosen.empty()) {
        // What runs now: the configs the running groups were started from.
        // A group that runs what the config file says runs that file's config.
        std::set<std::string> running;
        const auto current = config_id_of(deployment.cluster);
        for (const auto& group : diff_deployment(deployment).groups) {
            if (!group.running_config_id.empty()) running.insert(group.running_config_id);
            if (group.diff.change == plan::GroupChange::kSame) running.insert(current);
        }
        const auto journal = read_journal(deployment);
        auto runs = state::journal::parse_history(journal.text);
        for (auto run = runs.rbegin(); run != runs.rend() && chosen.empty(); ++run)
            if (run->exit_code == 0 && keeps_config(run->verb) && !run->config_id.empty() &&
                !running.count(run->config_id))
                chosen = run->run;
        if (chosen.empty())
            throw Failure(
                ExitCode::kUsage,
                fmt::format("no run that ended well kept a config other than the one that runs ({})",
                            journal.source),
                "name one: `pdctl rollback RUN` (`pdctl history` lists them)");
    }
    RollbackTarget target;
    target.kept = read_kept_config(deployment, chosen);
    target.deployment =
        open_deployment(load_kept_config(target.kept.bundle),
                        {false, Purpose::kDrive, "rollback", deployment.clock, deployment.prober});
    return target;
}

}  // namespace pdctl::ops

namespace pdctl::ops {

PausedTarget paused_rollout(const Deployment& deployment, bool abort) {
    const auto read = read_intent(deployment);
    if (!read.error.empty()) throw Failure(ExitCode::kUnreachable, read.error);
    if (!read.intent.rollout)
        throw Failure(ExitCode::kUsage, "no rollout is paused",
                      "`pdctl rollout --pause-after-canary` pauses one");
    PausedTarget target;
    target.paused = *read.intent.rollout;
    if (!abort) {
        const auto config_id = config_id_of(deployment.cluster);
        if (config_id != target.paused.config_id)
            throw Failure(
                ExitCode::kUsage,
                fmt::format("the config file is not the one whose canary {} passed (config {}, this is {})",
                            target.paused.canary, target.paused.config_id.substr(0, 12),
                            config_id.substr(0, 12)),
                "resume with the same config file, or `pdctl rollout abort`");
        return target;
    }
    std::string error;
    const auto bundle = fetch_kept_config(deployment, target.paused.previous_config_id, error);
    if (!bundle)
        throw Failure(ExitCode::kUsage,
                      fmt::format("the config to go back to ({}): {}", target.paused.previous_run, error));
    target.previous = open_deployment(load_kept_config(*bundle), {false, Purpose::kDrive, "rollout abort",
                                                                  deployment.clock, deployment.prober});
    return target;
}

}  // namespace pdctl::ops
