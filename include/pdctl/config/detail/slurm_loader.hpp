#pragma once
// Internal to the config layer: the `slurm:` block (executor: slurm).

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

// Reads `slurm:` into cluster.slurm; an error when it is there without `executor: slurm`, or when an
// sbatch option is one pdctl sets itself. Run after the header (it needs `executor:`).
void read_slurm(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

// `nodes: from-allocation`: the allocation's nodes (LoadContext::allocation) as the cluster's, and
// cluster.slurm.allocation set. False when `nodes:` is anything else (a list: read_nodes reads it).
bool read_allocation_nodes(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

// A role's `nodes:` items under from-allocation: "1-4" and "5" (1-based positions in the allocation)
// become the nodes' names, keeping the item's place for errors; other items are names already.
std::vector<Item> allocation_items(const LoadContext& ctx, const std::vector<Item>& items,
                                   const std::vector<Node>& nodes, const std::string& path);

// The runtime a role of this cluster gets when neither it nor `defaults:` names one: under SLURM the
// job steps are the processes, so `process`; `docker` elsewhere.
RuntimeKind default_runtime(ExecutorKind executor);

// Under SLURM every role runs as job steps: a role that asks for containers is an error at its key
// (containers under SLURM, pyxis/enroot, are not supported).
void check_slurm_roles(const YamlContext& ctx, const Cluster& cluster);

}  // namespace pdctl::config::detail
