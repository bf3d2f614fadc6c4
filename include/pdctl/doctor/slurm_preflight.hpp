#pragma once
// executor: slurm — start's preflight: before any job is submitted, every node of the stages to start
// must be one SLURM can give (sinfo): a drained, down or unknown node would leave the group's job
// pending for ever (SLURM001, naming the node and SLURM's reason). The GPU, port and image checks of
// the SSH preflight do not apply: the nodes are not reached, SLURM owns what runs on them.

#include <string>
#include <vector>

#include "pdctl/doctor/preflight.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::doctor {

// One sinfo on the submitting machine (the executor) for the nodes of `roles`' stages.
PreflightResult run_slurm_preflight(const plan::Plan& plan, exec::Executor& executor,
                                    const std::vector<std::string>& roles);

}  // namespace pdctl::doctor
