#pragma once
// Internal to the engine: restart --gated. Each decode group's new ranks start beside the old ones
// (which keep serving under another name) with SGLang's launch gate (plan/gated_launch.hpp): they
// join their group and wait there; then the old ranks are stopped and the gate opened, so the group is
// down only for what comes after the gate (weights, KV cache, CUDA graphs), not for the process start,
// the imports and the distributed init. Anything that fails before the old ranks are stopped is undone:
// the new ranks are stopped and the old ones get their names back, serving as before.

#include <optional>
#include <vector>

#include "pdctl/plan/gated_launch.hpp"
#include "run_context.hpp"
#include "starter.hpp"
#include "stopper.hpp"

namespace pdctl::engine {

class GatedRestart {
  public:
    // `gated` is the run's plan with every stage in it replaced by plan::gated_stage; `plain` the
    // same stages as the plan has them (their old units' names and runtimes are the same).
    GatedRestart(RunContext& run, const plan::Plan& plain, std::vector<plan::GatedPorts> ports)
        : run_(run), plain_(plain), ports_(std::move(ports)), starter_(run), stopper_(run) {}

    ExitCode run();

  private:
    // One group: nullopt when it serves again from its new ranks, else the run's end (reported).
    std::optional<ExitCode> restart_group(std::size_t index, TimePoint began);
    // Renames each unit of `stage` to its outgoing name (`aside`) or back; the failures, one line each.
    std::vector<std::string> rename_units(const plan::Stage& stage, bool aside);
    // Waits until rank 0's gate answers GET /health (every rank joined), watching the new ranks'
    // liveness meanwhile. nullopt once it answers, else why not.
    std::optional<StageResult> wait_at_gate(const plan::Stage& gated, const std::string& gate_url);
    // Before the switch: the new ranks stopped, the old ones renamed back; the run's end.
    ExitCode undo(const plan::Stage& gated, const StageResult& result, TimePoint began);
    // Stops the old (renamed) ranks of `plain`; the failures.
    std::vector<StopFailure> stop_outgoing(const plan::Stage& plain);

    RunContext& run_;
    const plan::Plan& plain_;
    std::vector<plan::GatedPorts> ports_;
    Starter starter_;
    Stopper stopper_;
};

}  // namespace pdctl::engine
