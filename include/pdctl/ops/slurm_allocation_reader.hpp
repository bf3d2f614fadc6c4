#pragma once
// `nodes: from-allocation`: the allocation this pdctl runs in, read from SLURM's environment
// ($SLURM_JOB_ID, $SLURM_JOB_NODELIST) and its nodes' addresses from `scontrol show node`.

#include "pdctl/config/slurm_allocation.hpp"

namespace pdctl::ops {

// Throws std::runtime_error with the reason (not inside an allocation, scontrol failed, a node
// without an address); the loader reports it at the config's `nodes:` line.
config::SlurmAllocation read_slurm_allocation();

}  // namespace pdctl::ops
