#pragma once
// `pdctl status`: every role and node of the selection, as the nodes and the servers report them now
// (engine/status.hpp), with --metrics their Prometheus numbers; with --probe a request through each
// router. `scoped` in `request` is set from `scope`.

#include "pdctl/engine/status.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/state/intent.hpp"

namespace pdctl::ops {

// `intent`: the operators' intent when the caller read it already (heal); else it is read here, and
// only when some group is wholly absent.
engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope,
                                  engine::StatusRequest request = {},
                                  const state::intent::Intent* intent = nullptr);

}  // namespace pdctl::ops
