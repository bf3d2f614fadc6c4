#pragma once
// Internal to the config layer: the `slurm:` block (executor: slurm).

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

// Reads `slurm:` into cluster.slurm; an error when it is there without `executor: slurm`, or when an
// sbatch option is one pdctl sets itself. Run after the header (it needs `executor:`).
void read_slurm(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

// The runtime a role of this cluster gets when neither it nor `defaults:` names one: under SLURM the
// job steps are the processes, so `process`; `docker` elsewhere.
RuntimeKind default_runtime(ExecutorKind executor);

// Under SLURM every role runs as job steps: a role that asks for containers is an error at its key
// (containers under SLURM, pyxis/enroot, are not supported).
void check_slurm_roles(const YamlContext& ctx, const Cluster& cluster);

}  // namespace pdctl::config::detail
