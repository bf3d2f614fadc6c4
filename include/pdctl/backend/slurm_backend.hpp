#pragma once
// executor: slurm. A group is one SLURM job, or one step of the allocation pdctl runs in
// (runtime/slurm_job.hpp): start writes its files and submits it once for all its ranks, and stop ends
// it once. Both run on the submitting machine, which the executor is; the node passed along is only
// the one messages name. Everything after the submission (liveness, gates, progress, a failed rank's
// tail) is the engine's common path over the SLURM runtime's view (runtime/slurm_runtime.hpp).
// pdctl does not reach the nodes: the scheduler frees a job's GPUs (GRES) when it leaves squeue.

#include "pdctl/backend/cluster_backend.hpp"

namespace pdctl::backend {

class SlurmBackend : public ClusterBackend {
  public:
    // `preflight` checks the groups' requests against the scheduler (doctor/slurm_preflight.hpp).
    // `config_path` names the config in refusals.
    SlurmBackend(exec::Executor& executor, engine::Preflight preflight, std::string config_path)
        : executor_(executor), preflight_(std::move(preflight)), config_path_(std::move(config_path)) {}

    std::string_view name() const override { return "slurm"; }
    std::optional<Refusal> refusal(const std::string& verb) const override;
    exec::Executor& executor() override { return executor_; }
    engine::StageResult launch(const plan::Plan& plan, const plan::Stage& stage, engine::Reporter& reporter,
                               const engine::StartHook& hook) override;
    std::vector<engine::StopFailure> stop(const plan::Plan& plan, const plan::Stage& stage,
                                          const std::string& verb, const std::set<std::string>& skip,
                                          engine::Reporter& reporter) override;
    std::string scheduler_state(const plan::Plan& plan, const plan::Unit& unit) override;
    bool checks_gpus() const override { return false; }
    engine::GpuUse gpu_use(const config::Node&) override { return {}; }
    std::optional<engine::PreflightAnswer> preflight(const std::vector<std::string>& roles) override;

  private:
    exec::Executor& executor_;
    engine::Preflight preflight_;
    std::string config_path_;
};

}  // namespace pdctl::backend
