#include "pdctl/ops/status.hpp"

#include "pdctl/health/http_prober.hpp"

namespace pdctl::ops {

engine::ClusterStatus read_status(const Deployment& deployment, const plan::Scope& scope, bool metrics) {
    health::RealHttpProber prober;
    const auto scoped = plan::scope_plan(deployment.plan, scope, "status");
    return engine::collect_status(scoped.plan, *deployment.executor, prober, !scope.empty(), metrics);
}

}  // namespace pdctl::ops
