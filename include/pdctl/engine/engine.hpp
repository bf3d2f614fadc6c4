#pragma once
// Runs a Plan: stages in plan order, the units of a stage in parallel, each stage started once the
// gates of its dependency edges passed (full readiness unless an edge is narrowed), fail-fast when a
// unit dies while its stage waits for readiness, and clean-up in reverse order on failure or Ctrl-C.

#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/gpu_use.hpp"
#include "pdctl/engine/observer.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/health/router_worker_api.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/plan/rolling.hpp"

namespace pdctl::engine {

struct RunContext;  // one run: the starter, the stopper and the rolling restart share it (src/engine/)

struct EngineOptions {
    bool keep_on_failure = false;
    // Only fault injection uses it (PDCTL_TEST_SIGKILL_AT, docs/reliability.md): it lets a test kill
    // pdctl at an exact point instead of at a lucky moment.
    StartHook start_hook;
    // How often a waiting stage checks that its units are still alive, or four times as long as the
    // last round took if that is longer. A crash is reported within that plus one inspect round trip.
    Duration liveness_interval{std::chrono::milliseconds(500)};
    int log_tail_lines = 20;
    // How often a waiting stage reads the end of each unit's log to report its start-up phase
    // (Reporter::unit_progress): one logs command per unit per interval. 0 disables it.
    Duration progress_interval{std::chrono::seconds(2)};
    int progress_tail_lines = 40;
    Duration probe_timeout{std::chrono::seconds(3)};
    // A router gate's one-token POST /generate (at most; never past the stage's deadline).
    Duration generate_timeout{std::chrono::seconds(30)};
    // A router gate whose request fails on the KV path this many times in a row with the same error
    // (GateAnswer::kv_path_failure) fails its stage then, instead of at the deadline: the stack has
    // answered, and waiting does not change a broken path (--transfer-error-limit; 0 = the deadline).
    int transfer_error_limit = 3;
    // After stop: how long to wait for the nodes of the stopped sglang units to show no GPU compute
    // process (--gpu-release-timeout; 0 = do not wait), polled every gpu_release_interval, when the
    // backend can see the GPUs (Backend::checks_gpus).
    // Before start launches anything, the backend's preflight over the stages it is about to start
    // (GPUs idle, ports free, images, RDMA devices); `preflight_skipped` says it was skipped on purpose
    // (--skip-preflight), which the run then records.
    bool preflight_skipped = false;
    Duration gpu_release_timeout{std::chrono::seconds(60)};
    Duration gpu_release_interval{std::chrono::seconds(1)};
    // The plan is a part of the cluster (--role/--group): units outside it are not leftovers, and a
    // dependency outside it must already be ready before start launches anything.
    bool scoped = false;
    // A rolling restart (plan/rolling.hpp): how long the router may take to drop a removed group from
    // its list, and how long the group then keeps running so that requests it already has can finish
    // (--drain-grace; SMG removes a worker after a fixed settle time, in-flight or not).
    Duration drain_timeout{std::chrono::minutes(2)};
    Duration drain_grace{std::chrono::seconds(30)};
};

class Engine {
  public:
    Engine(const plan::Plan& plan, Backend& backend, health::HttpProber& prober, Clock& clock,
           Reporter& reporter, EngineOptions options = {});

    // Brings the cluster up. Units of this cluster that the plan no longer names (a group or role
    // removed from the config) are stopped first. Stages already running from the same config and
    // passing their gate are left alone, unless a stage they depend on is replaced (restarted while it
    // ran: decode must reconnect to a restarted prefill); every other stage is (re)started. A stage
    // starts when every earlier stage passed the gate its edge to it names (Ready without an edge;
    // groups of one role do not wait for each other).
    ExitCode start();
    // Stops every unit of the plan in reverse stage order, then any unit of this cluster found on the
    // nodes that the plan no longer names. Idempotent.
    ExitCode stop();
    ExitCode restart();
    // Runs the steps of a rolling restart in order (the plan holds the stages they name and the
    // router). Stops at the first step that fails, naming the group and what the router said; a group
    // that was taken out stays out then (`pdctl start` restarts the router with every group).
    ExitCode rolling_restart(const plan::RollingPlan& rolling);
    // restart --gated (src/engine/gated_restart.hpp): every stage of the plan, a decode group in
    // containers, is replaced by new ranks that start beside the old ones and wait at SGLang's launch
    // gate until the old ones are stopped. The gate port is `base_gate_port` or the one after it (the
    // one the old ranks do not hold). Throws Failure (usage) for a stage that cannot be restarted so,
    // and (degraded) for a group that is not running whole: nothing is touched then.
    ExitCode gated_restart(int base_gate_port);

  private:
    // What one run works with (src/engine/run_context.hpp); `verb` names its end.
    RunContext context(const std::string& verb);

    const plan::Plan& plan_;
    Backend& backend_;
    health::HttpProber& prober_;
    Clock& clock_;
    Reporter& reporter_;
    EngineOptions options_;
};

}  // namespace pdctl::engine
