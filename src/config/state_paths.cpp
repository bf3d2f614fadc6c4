#include "pdctl/config/state_paths.hpp"

namespace pdctl::config {

std::string cluster_state_dir(const std::string& state_dir, const std::string& cluster) {
    std::string dir = state_dir;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();  // "/" becomes "": the root
    return dir + "/" + cluster;
}

std::string node_state_dir(const std::string& state_dir, const std::string& cluster,
                           const std::string& node) {
    return cluster_state_dir(state_dir, cluster) + "/" + node;
}

}  // namespace pdctl::config
