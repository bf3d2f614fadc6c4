#pragma once
// How a unit is started, inspected, logged and stopped on a node. Pure command builders: they return
// argv (+ stdin), never shell strings; fixed scripts take user values only as positional arguments.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/slurm_job.hpp"
#include "pdctl/runtime/unit_spec.hpp"

namespace pdctl::runtime {

// What a node says about one unit.
struct UnitState {
    std::string unit;
    bool running = false;
    int pid = 0;
    std::string exit_code;  // "" if unknown / still running
    long long started_epoch = 0;
    long long finished_epoch = 0;  // when an exited unit ended, by the node's clock; 0 = unknown/running
    long long node_now_epoch = 0;  // node clock at inspection, for uptime without clock skew
    // How long a running unit has run, by the node's boot clock (process runtime); -1: unknown, and the
    // uptime is node_now_epoch - started_epoch.
    long long age_seconds = -1;
    // executor: slurm: the unit's job as SLURM sees it, "job 42 PENDING (Resources)"; "" otherwise.
    std::string scheduler;
    // Containers: the ID of the image it runs ("sha256:..."), which a tag moved since does not change.
    std::string image_id;
    std::map<std::string, std::string>
        labels;  // pdctl.cluster, pdctl.role, pdctl.rank, pdctl.node, pdctl.config
};

// A unit's recent log and when it was last written, by the node's clock: whether the unit makes
// progress (engine/stall.hpp) without trusting the node's clock to agree with this machine's.
struct LogActivity {
    std::vector<std::string> lines;  // the last lines, oldest first, split on '\n' and '\r'
    long long last_write_epoch = 0;  // 0: unknown (no log yet)
    long long node_now_epoch = 0;    // 0: the command did not run
    // Seconds since the last write; -1 when unknown.
    long long quiet_seconds() const {
        return last_write_epoch > 0 && node_now_epoch >= last_write_epoch ? node_now_epoch - last_write_epoch
                                                                          : -1;
    }
};

class Runtime {
  public:
    virtual ~Runtime() = default;
    virtual exec::Command start(const UnitSpec& unit) const = 0;
    virtual exec::Command stop(const std::string& unit_name) const = 0;
    // One line for plans: what stop does, e.g. "docker stop -t 30 NAME; docker rm -f NAME".
    virtual std::string describe_stop(const std::string& unit_name) const = 0;
    virtual exec::Command logs(const std::string& unit_name, int tail_lines) const = 0;
    // The last `tail_lines` of the unit's log with the time of its last write and the node's clock.
    virtual exec::Command log_activity(const std::string& unit_name, int tail_lines) const = 0;
    virtual LogActivity parse_log_activity(const std::string& output) const = 0;
    // `py_spy dump --pid PID --subprocesses` of the unit's program (the first process of the unit
    // that is not a shell or an init), on the node or inside the container. Exit 3: nothing to dump.
    virtual exec::Command python_stack(const std::string& unit_name,
                                       const std::vector<std::string>& py_spy) const = 0;
    // Lists every unit of `cluster` on one node (one command per node).
    virtual exec::Command inspect(const std::string& cluster) const = 0;
    virtual std::vector<UnitState> parse_inspect(const std::string& output) const = 0;

    // What the unit runs, word for word, for plans: by default the payload of its start command.
    virtual std::vector<std::string> run_words(const UnitSpec& unit, const exec::Command& start) const;
    // Gives a running unit another name, so that a new unit can start under its own while it still runs
    // (a gated restart, engine/gated_restart.hpp). nullopt where a unit's name cannot change under it:
    // a process unit's supervising shell writes its exit record under the name it started with, and a
    // SLURM step's name is its job's.
    virtual std::optional<exec::Command> rename(const std::string& from, const std::string& to) const;
    // A runtime that starts a role group as one job rather than unit by unit (SLURM) returns that job;
    // the others return nothing. `units` are the group's ranks in order.
    virtual std::optional<SlurmJob> group_job(const config::SlurmSettings& settings, const std::string& group,
                                              const std::vector<UnitSpec>& units,
                                              const std::string& fingerprint, SlurmPlacement placement) const;
};

// `node_dir` is the per-node state directory (state_dir/cluster/node).
std::unique_ptr<Runtime> make_runtime(const RuntimeSpec& spec, const std::string& node_dir);

// The command a start script finally runs (`docker run ...` or the program), for readable plans.
// Start commands are `sh -c SCRIPT pdctl-start DIR UNIT X payload...`.
std::vector<std::string> start_payload(const exec::Command& start);

// The env file content sent on stdin: KEY=VALUE lines, the format of `docker run --env-file`, then
// kEnvEndMarker as the last line (a comment to docker and to the process runtime).
std::string env_file_content(const std::vector<EnvEntry>& env);
inline constexpr const char* kEnvEndMarker = "# pdctl: end of environment";
// (scripts/_env_complete.sh checks for it: a start script refuses an env file that does not end with it.)

// Splits log text into its non-empty lines on '\n' and '\r' (progress bars redraw with '\r').
std::vector<std::string> split_lines(const std::string& text);

// The labels stored with a unit.
std::map<std::string, std::string> unit_labels(const UnitSpec& unit);

}  // namespace pdctl::runtime
