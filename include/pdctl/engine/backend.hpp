#pragma once
// Where the units run, behind one seam. The engine decides what happens and in which order; a backend
// says how it happens on this cluster: how a stage's units are launched and stopped (each unit its own
// command over SSH or on this machine, or the group as one SLURM job or step), what the nodes' GPUs
// hold, the preflight, and what a scheduler says of a unit. One backend per run, chosen once from the
// config (backend/make_backend.hpp: ssh, local, slurm); another one (Kubernetes) is one more
// implementation, with no branch in the engine.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pdctl/engine/gpu_use.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::engine {

// The two moments around a unit's start command, for fault injection (EngineOptions::start_hook).
enum class StartMoment { kBeforeCommand, kAfterCommand };
// Called on the unit's thread right before its start command is sent and right after it returned.
using StartHook = std::function<void(StartMoment, const plan::Unit&)>;

// How a stage's launch, or its wait for readiness, ended.
struct StageResult {
    ExitCode code = ExitCode::kOk;
    StageFailure failure;
};

// A unit whose stop command did not succeed: it may still run (and hold its GPUs).
struct StopFailure {
    std::string unit;          // "decode rank 1 (pd-local-decode-1)"
    std::string node;          // "n6"
    bool unreachable = false;  // the transport failed: nothing is known about the unit
    std::string what;          // the node's words: what is still running, or why the stop failed
};

// The failure of one stop command, or nullopt if it succeeded.
std::optional<StopFailure> stop_failure(const exec::CommandResult& answer, const exec::Command& stop,
                                        std::string unit, const std::string& node_name);

// The plan's node of that name; Failure (internal) when the plan names none.
const config::Node& plan_node(const plan::Plan& plan, const std::string& name);

class Backend {
  public:
    virtual ~Backend() = default;

    // Runs every command of the run that is not a launch or a stop (inspect, logs, the lock, the journal).
    virtual exec::Executor& executor() = 0;

    // Starts every unit of `stage` (part of `plan`), reporting unit_done for each: the stage's first
    // failure, or kOk.
    virtual StageResult launch(const plan::Plan& plan, const plan::Stage& stage, Reporter& reporter,
                               const StartHook& hook) = 0;
    // Stops every unit of `stage`, reporting unit_done for each as `verb`; units on `skip` nodes
    // (unreachable) are left out, their stop would only time out. The stops that failed.
    virtual std::vector<StopFailure> stop(const plan::Plan& plan, const plan::Stage& stage,
                                          const std::string& verb, const std::set<std::string>& skip,
                                          Reporter& reporter) = 0;
    // The unit as its scheduler sees it now ("job 15 PENDING (Resources)"); "" without one: a gate that
    // timed out names it (the job may never have left the queue).
    virtual std::string scheduler_state(const plan::Plan& plan, const plan::Unit& unit) = 0;

    // Whether a stop waits for the nodes' GPUs to be free (false: nothing here can see them, or the
    // scheduler frees them when the job leaves).
    virtual bool checks_gpus() const = 0;
    virtual GpuUse gpu_use(const config::Node& node) = 0;
    // The start preflight over the stages of `roles`; nullopt when there is none to run.
    virtual std::optional<PreflightAnswer> preflight(const std::vector<std::string>& roles) = 0;
};

}  // namespace pdctl::engine
