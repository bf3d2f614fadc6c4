#pragma once
// Cluster -> Plan. Pure: touches no node, reads no file.

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

// Orders roles by their dependencies (stable: file order among independent roles) and builds every
// unit's commands. Throws Failure(kUsage) on a dependency cycle (the loader normally reports it first).
Plan build_plan(const config::Cluster& cluster);

}  // namespace pdctl::plan
