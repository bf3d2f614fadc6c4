#pragma once
// Cluster YAML + env files -> validated Cluster. Throws ConfigError with every problem found.

#include <string>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/model.hpp"

namespace pdctl::config {

Cluster load_cluster(const std::string& path, const FileSource& files);

}  // namespace pdctl::config
