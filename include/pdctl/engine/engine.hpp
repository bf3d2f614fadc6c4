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

struct WaitingStage;  // a launched stage whose readiness gate has not passed yet (src/engine/waiting.hpp)

struct EngineOptions {
    bool keep_on_failure = false;
    // Only fault injection uses it (PDCTL_TEST_SIGKILL_AT, docs/reliability.md): it lets a test kill
    // pdctl at an exact point instead of at a lucky moment.
    StartHook start_hook;
    // How often a waiting stage checks that its units are still alive. A crash is reported within
    // this interval plus one inspect round trip.
    Duration liveness_interval{std::chrono::milliseconds(500)};
    int log_tail_lines = 20;
    // How often a waiting stage reads the end of each unit's log to report its start-up phase
    // (Reporter::unit_progress): one logs command per unit per interval. 0 disables it.
    Duration progress_interval{std::chrono::seconds(2)};
    int progress_tail_lines = 40;
    Duration probe_timeout{std::chrono::seconds(3)};
    // A router gate's one-token POST /generate (at most; never past the stage's deadline).
    Duration generate_timeout{std::chrono::seconds(30)};
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

  private:
    using StageResult = engine::StageResult;
    using StopFailure = engine::StopFailure;

    bool stage_is_current(const plan::Stage& stage, const Observation& observation);
    // A scoped start refuses (exit 7) when a stage depends on one outside the plan that is not ready.
    std::optional<ExitCode> refuse_unready_dependencies(TimePoint began);
    // Which stages start must (re)start, by plan index: not current, or depending on a replaced stage.
    std::vector<bool> stages_to_start(const Observation& observation);
    // Before the `starting` stages start: the GPUs on `freed` nodes (replaced sglang units, removed
    // units) released, then the preflight. An exit code when the start must not go on (the run has
    // ended then).
    std::optional<ExitCode> run_preflight(const std::vector<bool>& starting,
                                          const std::set<std::string>& freed, TimePoint began);
    // Starts the stages marked in `starting` as their edges allow (engine_schedule.cpp); the others
    // count as ready. `started` collects what was launched, newest first (the clean-up order). kOk
    // once every stage is ready.
    StageResult start_stages(const std::vector<bool>& starting, std::vector<const plan::Stage*>& started);
    // Ends a run whose start_stages failed: the failure reported, what it started stopped in reverse
    // order (unless --keep-on-failure; never on a node that just became unreachable), the run's end.
    ExitCode end_failed_start(const StageResult& result, const std::vector<const plan::Stage*>& started,
                              TimePoint began);
    // Stops the units of this cluster found on the nodes that the plan does not name (a group or role
    // removed since they started); `stopped_on` gets their nodes. Returns the stops that failed.
    std::vector<StopFailure> stop_leftovers(const Observation& observation,
                                            std::set<std::string>& stopped_on);
    // One round of a waiting stage: liveness, gate probe, progress, deadline. nullopt: still waiting;
    // kOk: the gate passed; anything else: the stage failed.
    std::optional<StageResult> poll_gate(WaitingStage& waiting);
    // Returns a failure if a unit of the stage is not running.
    // `dead_since`: when this stage's wait first held a verdict back: a dead unit seen while another
    // unit of the group could not be listed, or one that ended without an error of its own while others
    // looked alive (the verdict then waits for a fuller picture; engine.cpp).
    std::optional<StageResult> check_liveness(const plan::Stage& stage,
                                              std::optional<TimePoint>* dead_since = nullptr);
    // Stops the stages' units (each stage's units in parallel, stages in the given order) and returns
    // the units whose stop failed.
    // Units on `skip` nodes (unreachable) are left out: their stop would only time out.
    std::vector<StopFailure> stop_stages(const std::vector<const plan::Stage*>& stages,
                                         const std::string& verb, const std::set<std::string>& skip = {});
    // Waits until every one of `nodes` shows no GPU compute process, or the deadline. Returns what is
    // still held ("n1: pid 432 python3 19592 MiB"), empty when all are free or cannot be checked.
    std::vector<std::string> wait_for_gpu_release(const std::vector<std::string>& nodes);
    // "pd-x-decode-1 on n6 (127.0.0.6): <what>; ..." for messages.
    std::string describe(const std::vector<StopFailure>& failures) const;
    std::vector<std::string> log_tail(const plan::Unit& unit);
    const config::Node& node(const std::string& name) const;

    // The steps of a rolling restart (engine_rolling.cpp); each returns an exit code once the run ended.
    std::optional<ExitCode> restart_one(const plan::Stage& stage, TimePoint began);
    std::optional<ExitCode> drain(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                  health::RouterWorkerApi& api, TimePoint began);
    std::optional<ExitCode> add_back(const plan::RollStep& step, const plan::RollingPlan& rolling,
                                     health::RouterWorkerApi& api, TimePoint began);
    ExitCode end_run(ExitCode code, const std::string& message, TimePoint began);

    const plan::Plan& plan_;
    Backend& backend_;
    exec::Executor& executor_;  // the backend's
    health::HttpProber& prober_;
    Clock& clock_;
    Reporter& reporter_;
    EngineOptions options_;
    std::string verb_ = "start";  // what the run's end is reported as (restart for a rolling restart)
};

}  // namespace pdctl::engine
