#include "pdctl/ops/node_selection.hpp"

#include <algorithm>

#include "pdctl/util/exit_code.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {

std::optional<std::vector<std::string>> selected_nodes(const Deployment& deployment,
                                                       const NodeSelection& selection) {
    if (selection.empty()) return std::nullopt;
    for (const auto& name : selection.nodes)
        if (!deployment.cluster.find_node(name))
            throw Failure(ExitCode::kUsage,
                          "--node: no node '" + name + "' in " + deployment.cluster.config_path,
                          "`pdctl plan` lists the nodes");
    const auto in_scope = selection.scope.empty() ? std::vector<std::string>{}
                                                  : plan::nodes_in_scope(deployment.plan, selection.scope);
    const auto keep = [&](const std::string& name) {
        const auto listed = [&](const std::vector<std::string>& names) {
            return std::find(names.begin(), names.end(), name) != names.end();
        };
        return (selection.scope.empty() || listed(in_scope)) &&
               (selection.nodes.empty() || listed(selection.nodes));
    };
    std::vector<std::string> chosen;
    for (const auto& node : deployment.cluster.nodes)
        if (keep(node.name)) chosen.push_back(node.name);
    if (chosen.empty())
        throw Failure(ExitCode::kUsage, "no node is in both --role/--group and --node",
                      "the groups run on: " + util::join(in_scope));
    return chosen;
}

}  // namespace pdctl::ops
