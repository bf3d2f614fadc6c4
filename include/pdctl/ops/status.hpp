#pragma once
// `pdctl status`: every role and node of the selection, as the nodes and the servers report them now
// (engine/status.hpp), with --metrics their Prometheus numbers; with --probe a request through each
// router. `scoped` in `request` is set from `scope`.

#include "pdctl/engine/status.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"

namespace pdctl::ops {

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope,
                                  engine::StatusRequest request = {});

}  // namespace pdctl::ops
