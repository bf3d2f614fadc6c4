#include "pdctl/ops/status.hpp"

#include "pdctl/health/http_prober.hpp"

namespace pdctl::ops {

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope,
                                  engine::StatusRequest request) {
    health::RealHttpProber prober;
    const auto scoped = plan::scope_plan(deployment.plan, scope, "status");
    request.scoped = !scope.empty();
    return engine::collect_status(scoped.plan, *deployment.executor, prober, request);
}

}  // namespace pdctl::ops
