#pragma once
// `pdctl status`: every role and node of the selection, as the nodes and the servers report them now
// (engine/status.hpp), with --metrics their Prometheus numbers.

#include "pdctl/engine/status.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"

namespace pdctl::ops {

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope, bool metrics);

}  // namespace pdctl::ops
