#include "pdctl/config/detail/coordinator.hpp"

#include <algorithm>

namespace pdctl::config::detail {
namespace {

// <state_dir>/<cluster>/<node>/ holds a node's units; these names sit next to them.
constexpr const char* kReservedNodeName = "lock";

}  // namespace

void read_coordinator(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
        if (cluster.nodes[i].name == kReservedNodeName)
            ctx.yaml.error(cluster.nodes[i].where, "nodes[" + std::to_string(i) + "].name",
                           "node name `lock` is reserved",
                           "pdctl keeps the deploy lock in <state_dir>/<cluster>/lock; rename the node");
    }
    std::string name;
    if (!top.string("coordinator", name)) {
        if (!top.find("coordinator") && !cluster.nodes.empty())
            cluster.coordinator = cluster.nodes.front().name;
        return;
    }
    const auto& where = top.find("coordinator")->value_where;
    const bool known = std::any_of(cluster.nodes.begin(), cluster.nodes.end(),
                                   [&](const Node& node) { return node.name == name; });
    if (known) {
        cluster.coordinator = name;
        return;
    }
    std::vector<std::string> names;
    for (const auto& node : cluster.nodes) names.push_back(node.name);
    std::string hint = did_you_mean(name, names);
    if (hint.empty()) hint = "the node that keeps the deploy lock and the journal; one of the `nodes:` names";
    ctx.yaml.error(where, "coordinator", "no node named `" + name + "`", hint);
}

}  // namespace pdctl::config::detail
