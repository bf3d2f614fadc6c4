#pragma once
// Internal to the engine: starting. `start` brings the cluster up (engine.hpp says how); its pieces
// (launch and wait for stages, the preflight) also serve the rolling restart.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run_context.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

struct WaitingStage;  // a launched stage whose readiness gate has not passed yet (waiting.hpp)
struct UnseenUnit;    // a unit a liveness round could not list (waiting.hpp)

class Starter {
  public:
    explicit Starter(RunContext& run) : run_(run), stopper_(run) {}

    ExitCode start();
    // Starts the stages marked in `starting` as their edges allow (starter_schedule.cpp); the others
    // count as ready. `started` collects what was launched, newest first (the clean-up order). kOk
    // once every stage is ready.
    StageResult start_stages(const std::vector<bool>& starting, std::vector<const plan::Stage*>& started);
    // Before the `starting` stages start: the GPUs on `freed` nodes (replaced sglang units, removed
    // units) released, then the preflight. An exit code when the start must not go on (the run has
    // ended then).
    std::optional<ExitCode> run_preflight(const std::vector<bool>& starting,
                                          const std::set<std::string>& freed, TimePoint began);
    // Waits for a stage whose units already run (a gated launch just opened, engine/gated_restart.cpp)
    // as start_stages waits for one it launched: liveness, gate, progress; its deadline counts from
    // `from`. kOk once the gate passed.
    StageResult wait_ready(const plan::Stage& stage, TimePoint from);
    // Returns a failure if a unit of the stage is not running.
    // `dead_since`: when this stage's wait first held a verdict back: a dead unit seen while another
    // unit of the group could not be listed, or one that ended without an error of its own while others
    // looked alive (the verdict then waits for a fuller picture; starter.cpp). `unseen`: set to the
    // units this round could not list.
    std::optional<StageResult> check_liveness(const plan::Stage& stage,
                                              std::optional<TimePoint>* dead_since = nullptr,
                                              std::vector<UnseenUnit>* unseen = nullptr);
    // Ends a run whose start_stages failed: the failure reported, what it started stopped in reverse
    // order (unless --keep-on-failure; never on a node that just became unreachable), the run's end.
    ExitCode end_failed_start(const StageResult& result, const std::vector<const plan::Stage*>& started,
                              TimePoint began);

    // Every unit runs with the plan's fingerprint and the gate passes (a worker-API router: it lists
    // the plan's workers too).
    bool stage_is_current(const plan::Stage& stage, const Observation& observation);

  private:
    // A scoped start refuses (exit 7) when a stage depends on one outside the plan that is not ready.
    std::optional<ExitCode> refuse_unready_dependencies(TimePoint began);
    // Which stages start must (re)start, by plan index: not current, or depending on a replaced stage.
    std::vector<bool> stages_to_start(const Observation& observation);
    // One round of a waiting stage: liveness, gate probe, progress, deadline. nullopt: still waiting;
    // kOk: the gate passed; anything else: the stage failed.
    std::optional<StageResult> poll_gate(WaitingStage& waiting);

    RunContext& run_;
    Stopper stopper_;
};

}  // namespace pdctl::engine
