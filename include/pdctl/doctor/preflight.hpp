#pragma once
// The checks `start` runs on the nodes of the stages it is about to start, before it starts anything
// (docs/doctor.md, "Preflight"): GPUs idle (GPU001-GPU003, naming a foreign process), every port the
// units will bind free (PORT001, naming its holder), images present with one ID per image (CTR001-
// CTR003) and the RDMA devices the profile names ACTIVE (RDMA001-RDMA002). One probe per node, all
// nodes in parallel: the doctor's probe, asked only for what these checks read.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/lint/finding.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::doctor {

struct PreflightResult {
    std::vector<lint::Finding> findings;  // errors stop the start; info says what was not checked
    int nodes = 0;
    int errors() const;
};

// `roles`: the stages start will launch (the others keep running and are not looked at).
PreflightResult run_preflight(const config::Cluster& cluster, const plan::Plan& plan,
                              exec::Executor& executor, const std::vector<std::string>& roles);

// Pure: the preflight's reading of the doctor's live findings (which checks count, at which severity).
std::vector<lint::Finding> preflight_findings(std::vector<lint::Finding> live);

}  // namespace pdctl::doctor
