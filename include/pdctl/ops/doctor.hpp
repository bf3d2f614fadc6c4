#pragma once
// `pdctl doctor`: the static rules of lint/ over the config and plan, then (unless static only) the
// live checks of doctor/ on every node, in one report.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/lint/rules.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct DoctorAnswer {
    lint::Report report;
    int static_errors = 0;  // the config's own errors, before any node was asked
};

// `nodes`: the live checks run on these nodes only, for the roles that run there (--role/--group/--node);
// nullopt: every node. The static rules always read the whole config: they compare roles with each other.
DoctorAnswer run_doctor(const Deployment& deployment, bool static_only,
                        const std::optional<std::vector<std::string>>& nodes = std::nullopt);

// The static rules alone, over the whole config and plan: what start and restart (and each config of a
// bench sweep) must pass before a node is touched. Touches no node.
lint::Report static_findings(const Deployment& deployment);

// docs/exit-codes.md: a config error first (the nodes are checked against a config that must change
// anyway), then an unreachable node, then an error found on a node.
ExitCode doctor_exit_code(const DoctorAnswer& answer);

}  // namespace pdctl::ops
