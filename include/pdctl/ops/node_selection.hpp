#pragma once
// --role / --group / --node on the verbs that act on nodes rather than units (push, doctor): which
// nodes. A role means every group of it, as everywhere.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"

namespace pdctl::ops {

struct NodeSelection {
    plan::Scope scope;               // --role / --group: the nodes of those groups
    std::vector<std::string> nodes;  // --node (repeatable): only these
    bool empty() const { return scope.empty() && nodes.empty(); }
};

// The selected node names in `nodes:` order; nullopt when nothing is selected (every node). Throws
// Failure(kUsage) for an unknown role, group or node, or a selection that leaves no node.
std::optional<std::vector<std::string>> selected_nodes(const Deployment& deployment,
                                                       const NodeSelection& selection);

}  // namespace pdctl::ops
