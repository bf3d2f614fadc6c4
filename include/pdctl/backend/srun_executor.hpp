#pragma once
// executor: slurm: how a person's command reaches a node (`exec`, `stack`). pdctl does not log in to
// SLURM nodes; it runs the command as a step of a job that already holds the node, with `srun
// --overlap` (which shares the job's CPUs, memory and GRES with the steps running there, the ranks):
// the allocation under `nodes: from-allocation`, otherwise a running job of this deployment on that
// node, found with squeue. A node that no job of the deployment holds cannot be reached: the answer
// says so as a transport error (exit 3), as an SSH node that refuses the connection does.

#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::backend {

class SrunExecutor : public exec::Executor {
  public:
    // `here` runs srun and squeue on this machine; `job_prefix` is the start of every job name of the
    // deployment ("pd-CLUSTER-"); `allocation` the SLURM allocation its groups are steps of, or "".
    SrunExecutor(exec::Executor& here, std::string job_prefix, std::string allocation)
        : here_(here), job_prefix_(std::move(job_prefix)), allocation_(std::move(allocation)) {}

    exec::CommandResult run(const config::Node& node, const exec::Command& command) override;

  private:
    exec::Executor& here_;
    std::string job_prefix_;
    std::string allocation_;
};

// The squeue that lists the running jobs on `node` ("ID|NAME" lines), and the first of them whose
// name starts with `job_prefix` ("" when there is none).
exec::Command running_jobs_query(const std::string& node);
std::string job_to_enter(const std::string& squeue_output, const std::string& job_prefix);
// srun's words before the command: one task on `node`, inside job `job`, beside its steps.
std::vector<std::string> srun_prefix(const std::string& job, const std::string& node);

}  // namespace pdctl::backend
