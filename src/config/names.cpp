#include "pdctl/config/names.hpp"

namespace pdctl::config {

std::string deployment_name(const std::string& cluster, const std::string& group) {
    return "pd-" + cluster + "-" + group;
}

std::string unit_name(const std::string& cluster, const std::string& group, int rank) {
    return deployment_name(cluster, group) + "-" + std::to_string(rank);
}

}  // namespace pdctl::config
