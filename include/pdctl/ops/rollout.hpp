#pragma once
// `pdctl rollout`: the deployment taken from what runs to the config, one group at a time through the
// router, judged at the canary, rolled back when it fails. The steps come from plan::rollout_plan; this
// use case reads what runs (ops/diff.hpp), measures a baseline, replaces the canary, judges it
// (ops/canary.hpp and the bench's gate), then replaces the rest, or puts back the previous config (the
// kept config the changed groups run from) on every group it already replaced. One journaled run.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/ops/bench.hpp"
#include "pdctl/ops/bench_compare.hpp"
#include "pdctl/ops/canary.hpp"
#include "pdctl/ops/config_history.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/diff.hpp"
#include "pdctl/plan/rollout.hpp"
#include "pdctl/state/intent.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct RolloutRequest {
    std::string canary;  // --canary GROUP
    bool allow_downtime = false;
    // The soaks (baseline, canary) pass with groups whose KV failure counters cannot be read (no
    // --enable-metrics), judged by their requests alone (bench --allow-unverified).
    bool allow_unverified = false;
    double max_regress = 0.10;
    // The load the baseline and the canary are each measured under: its length (--canary-window) and
    // its concurrency.
    std::chrono::milliseconds canary_window{std::chrono::seconds(20)};
    int concurrency = 8;
    std::string baseline_file;  // --baseline FILE: a bench record instead of a measured baseline
    std::chrono::milliseconds drain_grace{std::chrono::seconds(5)};
    // What the verb is called in the journal and messages ("rollout", "rollback").
    std::string verb = "rollout";
    // --pause-after-canary: once the canary passed, record the pause and end; `rollout resume|abort`.
    bool pause_after_canary = false;
    // `rollout resume|abort`: every step a plain replacement, no baseline and no canary (the canary was
    // judged before the pause; abort goes back to the config that served), and the pause cleared.
    bool resuming = false;
};

// What a rollout will do, before anything is touched (`--dry-run` prints it).
struct RolloutPreview {
    plan::RolloutPlan plan;
    std::vector<GroupDrift> groups;  // what runs against the config
    std::string previous_run;        // the run whose kept config the changed groups run from
    std::string previous_config;     // its ID: where a rollback goes
};

struct CanaryVerdict {
    std::string group;
    BenchReport baseline;
    BenchReport measured;
    std::optional<BenchComparison> comparison;
    std::optional<LatencyComparison> latency;
    std::string latency_not_judged;     // why the canary's own latency was not compared
    std::vector<std::string> problems;  // why it failed: the metric, the values, the interval
    bool passed() const { return problems.empty(); }
};

struct RolloutStepOutcome {
    plan::RolloutStep step;
    double seconds = 0;
    ExitCode code = ExitCode::kOk;
};

struct RolloutResult {
    RolloutPreview preview;
    std::vector<RolloutStepOutcome> steps;  // those taken, in order
    double rollback_seconds = 0;
    std::vector<std::string> replaced;  // groups now on the config
    std::optional<CanaryVerdict> canary;
    bool rolled_back = false;
    bool paused = false;  // --pause-after-canary: the canary passed, the rest waits
    std::vector<std::string> rolled_back_groups;
    std::optional<std::chrono::milliseconds> downtime;  // --allow-downtime: measured
    ExitCode code = ExitCode::kOk;
    std::string message;
};

// Reads the nodes and the kept configs, and plans. Throws Failure (usage) for a change the rollout
// refuses (plan::rollout_plan) or a group that runs from a config pdctl did not keep (no way back).
RolloutPreview preview_rollout(const Deployment& deployment, const RolloutRequest& request);

// The whole rollout under the deploy lock, journaled as one run of `request.verb`; `screen` sees the
// progress. Throws Failure as preview_rollout does, before anything is touched.
RolloutResult run_rollout(const Deployment& deployment, const RolloutRequest& request,
                          engine::Reporter& screen);

// `rollout resume` / `rollout abort`: the paused rollout's config (resume: it must be the config file's
// own), or the config it started from (abort), opened as a deployment to roll out with `resuming`.
// Throws Failure (usage) when no rollout is paused, or the config file is another than the paused one.
struct PausedTarget {
    state::intent::PausedRollout paused;
    std::optional<Deployment> previous;  // abort: the config to go back to
};
PausedTarget paused_rollout(const Deployment& deployment, bool abort);

}  // namespace pdctl::ops

namespace pdctl::ops {

// `pdctl rollback [RUN]`: the kept config of RUN (default: the newest run that ended well with a
// config other than the one the deployment runs now), opened as a deployment to roll out. Throws
// Failure (usage) when there is none.
struct RollbackTarget {
    KeptConfig kept;
    Deployment deployment;
};
RollbackTarget rollback_target(const Deployment& deployment, const std::string& selector);

}  // namespace pdctl::ops
