#pragma once
// What a runtime needs to start a unit: the program with its environment, how the role runs on its
// nodes, and who the unit is (the labels it carries). plan/ decides these and keeps them in its Units;
// they live here, with the layer that consumes them, so that runtime/ knows nothing of plans.

#include <map>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"

namespace pdctl::runtime {

struct EnvEntry {
    std::string key;
    std::string value;
    bool secret = false;
};

// What a role kind decides for one rank: the program and its environment, independent of where it runs.
struct ProgramSpec {
    std::vector<std::string> argv;
    std::vector<EnvEntry> env;
    std::string bootstrap;  // shell run before the program ("" = none)
};

// How a role runs on its nodes.
struct RuntimeSpec {
    config::RuntimeKind kind = config::RuntimeKind::Process;
    std::string cli;    // container CLI (docker/podman/path); empty for process
    std::string image;  // container image; empty for process
    std::vector<std::string> options;
    std::string state_dir;  // per node: where env/pid/log/state files live
    int stop_grace_seconds = 30;
    // executor: slurm: the cluster's job directory (config::slurm_output_dir), one subdirectory per
    // group; the units are SLURM tasks, seen and stopped from the submitting machine
    // (runtime/slurm_runtime.hpp). Empty for the other executors.
    std::string slurm_dir;
    // `nodes: from-allocation`: the allocation whose steps the groups are (SLURM job id); empty: each
    // group is a job of its own.
    std::string slurm_allocation;
};

// The directory on the node that keeps a unit's compiled kernels between starts (`cache:`). The start
// script makes it hold the cache of this unit's kernel key, or an empty one (src/runtime/scripts/
// _cache_prepare.sh): the key hashes `parts` with what only the node knows (image ID, GPUs, driver).
struct CacheSpec {
    std::string dir;                 // on the node; "" = none
    std::string mount;               // containers: where `dir` is mounted inside; "" for processes
    std::vector<std::string> parts;  // "name=value": what makes a compiled kernel valid, as pdctl knows it

    bool enabled() const { return !dir.empty(); }
    // The start scripts' CACHE parameter: "" or the directory, then one part per line.
    std::string script_text() const;
};

// Who a unit is and what it runs: everything its start command and labels are made of.
struct UnitSpec {
    std::string name;  // pd-<cluster>-<role>-<rank>: container name / state file name
    std::string cluster;
    std::string role;
    std::string node;
    int rank = 0;
    ProgramSpec program;
    CacheSpec cache;
    std::string fingerprint;  // of the resolved spec; stored on the node to detect drift
    // Labels beyond the ones every unit carries (unit_labels): how this start differs from the plan's
    // without changing what it runs, e.g. the ports of a gated launch (plan/gated_launch.hpp).
    std::map<std::string, std::string> extra_labels;
};

}  // namespace pdctl::runtime
