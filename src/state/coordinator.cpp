#include "pdctl/state/coordinator.hpp"

#include "pdctl/util/exit_code.hpp"

namespace pdctl::state {

const config::Node& coordinator_node(const config::Cluster& cluster) {
    if (cluster.nodes.empty()) throw Failure(ExitCode::kUsage, "the cluster has no nodes");
    if (cluster.coordinator.empty()) return cluster.nodes.front();
    if (const auto* node = cluster.find_node(cluster.coordinator)) return *node;
    throw Failure(ExitCode::kUsage, "coordinator '" + cluster.coordinator + "' is not one of the nodes");
}

}  // namespace pdctl::state
