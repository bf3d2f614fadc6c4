#pragma once
// What pdctl calls the things it starts: one function, so a unit's container or process and a group's
// SLURM job share one pattern that `docker ps`, `squeue --name` and an operator can filter on.

#include <string>

namespace pdctl::config {

// "pd-<cluster>-<group>": a group's SLURM job; with "-<rank>" added, each unit (container, process).
std::string deployment_name(const std::string& cluster, const std::string& group);
// "pd-<cluster>-<group>-<rank>".
std::string unit_name(const std::string& cluster, const std::string& group, int rank);

}  // namespace pdctl::config
