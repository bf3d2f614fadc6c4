#include "pdctl/config/state_paths.hpp"

#include "pdctl/util/strings.hpp"

namespace pdctl::config {

std::string cluster_state_dir(const std::string& state_dir, const std::string& cluster) {
    return util::without_trailing_slash(state_dir) + "/" + cluster;  // "/" becomes "": the root
}

std::string node_state_dir(const std::string& state_dir, const std::string& cluster,
                           const std::string& node) {
    return cluster_state_dir(state_dir, cluster) + "/" + node;
}

std::string slurm_output_dir(const std::string& output_dir, const std::string& state_dir,
                             const std::string& cluster) {
    if (output_dir.empty()) return cluster_state_dir(state_dir, cluster) + "/slurm";
    std::string dir = output_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir == "/" ? "/" + cluster : dir + "/" + cluster;
}

}  // namespace pdctl::config
