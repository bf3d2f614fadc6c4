#pragma once
// executor: slurm — the units of a group are the tasks of its SLURM job (runtime/slurm_job.hpp). Every
// command here runs on the submitting machine, never on a node: SLURM says whether the job holds the
// nodes (squeue), and the job's directory on the shared file system says the rest, one file per fact
// and rank: NAME.labels (who, written by pdctl before sbatch), NAME.pid and NAME.started (written by
// the task as its program starts), NAME.exit (its exit code, dated by the file's time) and NAME.log.
//
// A unit is running while its job is in a state that still holds the nodes (PENDING included: it was
// submitted and nothing failed yet) and it has recorded no exit. Its `scheduler` says which job and in
// which state, so status can tell pending from running.

#include "pdctl/runtime/runtime.hpp"

namespace pdctl::runtime {

class SlurmRuntime : public Runtime {
  public:
    // How long stop waits for SLURM to end the job after its own cancel (SIGTERM, KillWait, SIGKILL,
    // the node's clean-up) before it calls the job unstoppable.
    static constexpr int kCancelWaitSeconds = 60;

    // `node` is the SLURM node whose units inspect lists.
    SlurmRuntime(RuntimeSpec spec, std::string node) : spec_(std::move(spec)), node_(std::move(node)) {}
    // Empty: the group's job starts every unit (Stage::slurm).
    exec::Command start(const UnitSpec& unit) const override;
    // Stops the unit's whole job: every rank of the group goes with it.
    exec::Command stop(const std::string& unit_name) const override;
    std::string describe_stop(const std::string& unit_name) const override;
    exec::Command logs(const std::string& unit_name, int tail_lines) const override;
    exec::Command log_activity(const std::string& unit_name, int tail_lines) const override;
    LogActivity parse_log_activity(const std::string& output) const override;
    // Not yet: py-spy would have to run on the node, inside the job (srun --overlap); exit 3.
    exec::Command python_stack(const std::string& unit_name,
                               const std::vector<std::string>& py_spy) const override;
    exec::Command inspect(const std::string& cluster) const override;
    std::vector<UnitState> parse_inspect(const std::string& output) const override;
    // The program itself: the group's job starts it (start() is empty).
    std::vector<std::string> run_words(const UnitSpec& unit, const exec::Command& start) const override;
    // The group's job, its directory under the cluster's job directory (RuntimeSpec::slurm_dir).
    std::optional<SlurmJob> group_job(const config::SlurmSettings& settings, const std::string& group,
                                      const std::vector<UnitSpec>& units, const std::string& fingerprint,
                                      SlurmPlacement placement) const override;

  private:
    RuntimeSpec spec_;
    std::string node_;
};

// The job a unit belongs to: its name without the rank (pd-<cluster>-<group>-<rank> → pd-<cluster>-<group>).
std::string slurm_job_of(const std::string& unit_name);

}  // namespace pdctl::runtime
