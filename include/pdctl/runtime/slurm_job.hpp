#pragma once
// executor: slurm — one role group as one SLURM job (docs/slurm.md). Pure command builders, like the
// other runtimes: argv (+ stdin), the file contents made by util::join_command, fixed scripts that
// take every value as a positional parameter.
//
// The job owns the group's nodes (--exclusive, --nodelist in rank order) and runs one task per node
// (srun --ntasks-per-node=1 --kill-on-bad-exit=1: one rank failing ends the group, as a crashed rank
// takes an SGLang group down). Each task finds its rank by its node's name among the job's nodes, in
// the plan's rank order (SLURM numbers nodes in its own order, SLURM_NODEID would not follow the
// config), reads its environment from a 0600 file and runs exactly the rank's argv, its output in the
// unit's log. Every file is in the job's directory, which the submitting machine and every node see.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/unit_spec.hpp"

namespace pdctl::runtime {

struct SlurmJob {
    std::string name;                // pd-<cluster>-<group>: the job name stop and status find it by
    std::string comment;             // "pdctl cluster=<c> config=<fingerprint>": what it was started from
    std::string dir;                 // <output_dir>/<group>: job script, rank scripts, env files, logs
    std::vector<std::string> nodes;  // SLURM node names, in rank order
    // `nodes: from-allocation`: a step of the allocation pdctl runs in (srun --jobid, detached), not
    // a job: `submit` launches job.sh instead of sbatch, and the step is found by its name.
    bool step = false;
    std::string allocation;         // its job id, for a step
    std::string job_script;         // the batch script's content (no secrets: those are in the env files)
    std::vector<std::string> srun;  // the one command the job script runs (exec'd)
    std::size_t srun_script = 0;    // where in `srun` the fixed rank script is (plans leave it out)
    // Run on the submitting machine, in order: remove what an earlier job of the group left, write the
    // job's files (each env file 0600, its content on stdin; a rank's .labels after its other files),
    // then sbatch, which prints the job id (--parsable); or, for a step, the detached launch, which
    // prints the allocation's id.
    std::vector<exec::Command> prepare;
    exec::Command submit;
    // Stop is each unit's stop command, by job name, so a second pdctl finds the job the same way
    // (runtime/slurm_runtime.hpp).
};

// How one group's job asks for its nodes.
struct SlurmPlacement {
    // The group's GPUs: `slurm.gres` goes to GPU roles (SGLang groups) only; the Mooncake master and
    // the router need none, and asking would take the GPUs from the group they share a node with.
    bool gpus = false;
    // --exclusive when no other role runs on any of its nodes: an exclusive job would wait forever
    // for the node the master or the router holds.
    bool exclusive = false;
};

// `units` are the group's ranks in order (rank K on units[K].node); `output_dir` is the cluster's
// (config SlurmSettings::output_dir, or its default).
SlurmJob make_slurm_job(const config::SlurmSettings& settings, const std::string& output_dir,
                        const std::string& group, const std::vector<UnitSpec>& units,
                        const std::string& fingerprint, SlurmPlacement placement);

// A unit's `.labels` file: unit_labels() as key=value lines, then pdctl.job=<job name>.
std::string slurm_labels_text(const UnitSpec& unit, const std::string& job_name);

// sbatch's --time: whole minutes, rounded up.
std::string slurm_minutes(config::Duration limit);

}  // namespace pdctl::runtime

namespace pdctl::runtime {

// What SLURM says of a node before anything is submitted (sinfo), for the preflight: a drained, down
// or unknown node would leave a group's job pending for ever.
struct SlurmNodeState {
    std::string node;
    std::string state;   // sinfo %T: idle, mixed, allocated, drained, down*, ... (* = not responding)
    std::string reason;  // sinfo %E: why an admin drained it; "none" when there is none
};

// sinfo --noheader --Node --nodes=<nodes> --format=%N|%T|%E
exec::Command slurm_node_query(const std::vector<std::string>& nodes);
std::vector<SlurmNodeState> parse_slurm_node_states(const std::string& output);
// One line per node the job cannot get, in `wanted` order: "pds3: drained in SLURM (reason:
// maintenance)", "pds9: not a node of this SLURM cluster (sinfo does not list it)". Empty: all usable.
std::vector<std::string> slurm_node_problems(const std::vector<std::string>& wanted,
                                             const std::vector<SlurmNodeState>& states);

}  // namespace pdctl::runtime
