#pragma once
// `pdctl exec`: which nodes (or which units' containers) a command runs on, and the exact command for
// each. Pure: the CLI runs the commands, the executor quotes them (util::join_command).

#include <optional>
#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/plan/scope.hpp"

namespace pdctl::plan {

struct ExecSelection {
    Scope scope;                     // --role / --group: the nodes (units) of those stages
    std::vector<std::string> nodes;  // --node: only these nodes
    std::optional<int> rank;         // --rank: only that rank of the selected groups
    bool in_container = false;       // --in-container: in each unit's container, not on the host
};

struct ExecTarget {
    std::string node;   // the node's name
    std::string unit;   // the unit whose container it runs in; "" on the host
    std::string label;  // what the output names: the node, or "n1:pd-x-prefill-0" when a node has
                        // several selected containers
    exec::Command command;
};

// One target per selected node (host), or per selected unit (--in-container), in the order of the
// config's nodes. Nothing selected = every node of the cluster (every unit with --in-container).
// Throws Failure(kUsage) for an empty command, an unknown node, --rank without --role/--group, a
// selection that matches nothing, or --in-container on a unit that runs as a process.
std::vector<ExecTarget> exec_targets(const Plan& plan, const ExecSelection& selection,
                                     const std::vector<std::string>& argv, Duration timeout);

}  // namespace pdctl::plan
