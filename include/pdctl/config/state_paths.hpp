#pragma once
// Where pdctl keeps its files on a node, for every layer that builds such a path: one function each,
// so the lock, the journal and every unit's files agree even for a state_dir of "/".

#include <string>

namespace pdctl::config {

// <state_dir>/<cluster>, without a trailing slash: the deploy lock and the journal live here, beside
// the node directories.
std::string cluster_state_dir(const std::string& state_dir, const std::string& cluster);
// <state_dir>/<cluster>/<node>: one node's unit files (pid, state, exit, env, log). Several simulated
// nodes can share one machine without sharing files.
std::string node_state_dir(const std::string& state_dir, const std::string& cluster, const std::string& node);
// executor: slurm: where the role groups' job directories go, `slurm.output_dir` or
// <state_dir>/<cluster>/slurm (a file system every node and the submitting machine share).
std::string slurm_output_dir(const std::string& output_dir, const std::string& state_dir,
                             const std::string& cluster);

}  // namespace pdctl::config
