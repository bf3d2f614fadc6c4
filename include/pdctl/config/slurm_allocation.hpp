#pragma once
// `nodes: from-allocation` (executor: slurm): the nodes are those of the SLURM allocation pdctl runs in
// (salloc, or an sbatch job's batch script), and each role group is a step of that allocation instead
// of a job of its own (docs/slurm.md). The parsing here is pure; reading the environment and asking
// scontrol for the nodes' addresses is the use-case layer's (ops/slurm_allocation_reader.cpp).

#include <functional>
#include <string>
#include <vector>

namespace pdctl::config {

struct AllocatedNode {
    std::string name;     // the SLURM node name
    std::string address;  // where pdctl's HTTP gates reach it: scontrol's NodeAddr
};

struct SlurmAllocation {
    std::string job_id;                // $SLURM_JOB_ID: the allocation whose steps the role groups become
    std::string nodelist;              // $SLURM_JOB_NODELIST as given, for messages (pds[1-8])
    std::vector<AllocatedNode> nodes;  // in SLURM's order, which `nodes: [1-4]` positions count in
};

// How the loader gets the allocation, only when a cluster file says `nodes: from-allocation`. Throws
// std::runtime_error saying why there is none (no SLURM_JOB_ID, scontrol failed, ...).
using AllocationReader = std::function<SlurmAllocation()>;

// SLURM's compact host list ("gpu[001-003,010],login1", "a[1-2]-ib[0-1]") as names, in its order.
// Throws std::invalid_argument naming what is malformed (an unclosed bracket, a reversed range...).
std::vector<std::string> expand_hostlist(const std::string& hostlist);

// `scontrol show node --oneliner NAMES` → each node's NodeAddr, in the output's order; nodes without
// one are left out.
std::vector<AllocatedNode> parse_node_addresses(const std::string& scontrol_output);

// A role's `nodes:` item under from-allocation: "3" or "1-4", 1-based positions in the allocation.
// Returns the positions, or an empty vector when `item` is no position (then it is a node name).
std::vector<std::size_t> allocation_positions(const std::string& item);

}  // namespace pdctl::config
