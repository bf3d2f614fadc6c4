#pragma once
// Cluster YAML + env files -> validated Cluster. Throws ConfigError with every problem found.

#include <string>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/model.hpp"
#include "pdctl/config/slurm_allocation.hpp"

namespace pdctl::config {

// `allocation` is asked only by a file that says `nodes: from-allocation`; without one such a file is
// an error at that line.
Cluster load_cluster(const std::string& path, const FileSource& files,
                     const AllocationReader& allocation = {});

}  // namespace pdctl::config
