#pragma once
// The `process` runtime: a unit is a process group on the node, started detached with setsid, with
// pid, exit code, labels and log in the node's state directory. Used by the local simulated cluster
// and on hosts without a container engine.

#include "pdctl/runtime/runtime.hpp"

namespace pdctl::runtime {

class ProcessRuntime : public Runtime {
  public:
    // How long stop waits after SIGKILL before it calls the unit unstoppable: the kernel tears a killed
    // process down at once unless it sits in uninterruptible sleep (a GPU driver releasing memory can
    // take seconds); one still there after this is reported, not assumed gone.
    static constexpr int kKillWaitSeconds = 10;

    ProcessRuntime(RuntimeSpec spec, std::string node_dir)
        : spec_(std::move(spec)), dir_(std::move(node_dir)) {}
    exec::Command start(const UnitSpec& unit) const override;
    exec::Command stop(const std::string& unit_name) const override;
    std::string describe_stop(const std::string& unit_name) const override;
    exec::Command logs(const std::string& unit_name, int tail_lines) const override;
    exec::Command log_activity(const std::string& unit_name, int tail_lines) const override;
    LogActivity parse_log_activity(const std::string& output) const override;
    exec::Command python_stack(const std::string& unit_name,
                               const std::vector<std::string>& py_spy) const override;
    exec::Command inspect(const std::string& cluster) const override;
    std::vector<UnitState> parse_inspect(const std::string& output) const override;

  private:
    RuntimeSpec spec_;
    std::string dir_;
};

// The argv that runs the unit's program, with BOOTSTRAP first when there is one:
//   sh -c '<src/runtime/scripts/bootstrap.sh>' pdctl-bootstrap <bootstrap> <program argv...>
// (BOOTSTRAP is run with eval in that shell; its failure, or text that does not parse, exits 97).
std::vector<std::string> launch_argv(const ProgramSpec& program);

// Parses what the log-activity scripts print: `now=` and `last_write=` (epochs), a blank line, the tail.
LogActivity parse_log_activity_text(const std::string& output);

// Parses the `key=value` blocks (separated by blank lines) printed by the inspect scripts.
std::vector<UnitState> parse_state_blocks(const std::string& output);

}  // namespace pdctl::runtime
