#include <algorithm>

#include "pdctl/plan/role_kinds.hpp"
#include "program_env.hpp"

namespace pdctl::plan {
namespace {

struct KindDefaults {
    std::string path;
    int port;
    Duration deadline;
    Duration interval;
    std::string why;
};

// Readiness per kind (SGLang entrypoints/engine.py and http_server.py, the routers' start-up, Mooncake
// mooncake-store/src/master.cpp): an SGLang group is ready when rank 0's /health is 200 (its port
// stays closed until every rank joined and warm-up passed); the Rust router and SMG need /readiness
// (their /health is liveness only); MiniLB has only /health, which is 200 once it listens.
KindDefaults kind_defaults(const config::Role& role) {
    using namespace std::chrono;
    switch (role.kind) {
        case config::RoleKind::MooncakeMaster:
            return {"/health", role.metrics_port ? role.metrics_port : kMooncakeMetricsPort, minutes(2),
                    seconds(1), "metrics /health"};
        case config::RoleKind::Sglang:
            return {"/health", service_port(role), minutes(30), seconds(2), "rank0 /health"};
        case config::RoleKind::Router:
            if (role.router_impl == config::RouterImpl::MiniLb)
                return {"/health", service_port(role), minutes(5), seconds(1), "MiniLB /health"};
            return {"/readiness", service_port(role), minutes(5), seconds(1), "router /readiness"};
        case config::RoleKind::Generic:
            return {"/health", role.health.port, minutes(10), seconds(2), "/health"};
    }
    return {};
}

std::string base_url(const config::Cluster& cluster, const config::Role& role, int port) {
    const auto& rank0 = detail::node_of(cluster, role, 0);
    return "http://" + routable_address(role, rank0) + ":" + std::to_string(port);
}

// A router is ready when a request gets through a prefill and a decode: a one-token POST /generate
// through it, after (for the routers that have them) /readiness and the worker list.
void add_router_checks(const config::Cluster& cluster, const config::Role& role, Gate& gate) {
    const std::string base = base_url(cluster, role, service_port(role));
    gate.checks.push_back({CheckKind::Status, gate.url, gate.expect_status, {}, gate.why});
    if (role.router_impl == config::RouterImpl::MiniLb) {
        gate.caveat =
            "MiniLB answers /health with 200 from the moment it listens, whatever its workers do: only a "
            "request through it proves the KV path";
    } else {
        gate.caveat =
            "/readiness needs one healthy prefill and one healthy decode, not all of them, and says "
            "nothing of the KV path between them";
        const auto workers = router_worker_urls(cluster, role);
        gate.checks.push_back(
            {CheckKind::Workers, base + "/workers", 200, workers,
             "/workers lists the " + std::to_string(workers.size()) + " workers, each healthy"});
    }
    gate.checks.push_back(
        {CheckKind::Generate, base + "/generate", 200, {}, "POST /generate (1 output token) returns text"});
    gate.why.clear();
    for (const auto& check : gate.checks) gate.why += (gate.why.empty() ? "" : ", then ") + check.why;
}

}  // namespace

std::vector<GateCheck> Gate::effective_checks() const {
    if (!checks.empty()) return checks;
    return {GateCheck{CheckKind::Status, url, expect_status, {}, why}};
}

Duration Gate::quick_interval() const {
    return std::max(Duration(50), interval / 5);
}

Duration Gate::probe_interval(Duration since_begin) const {
    if (quick_until <= quick_from || since_begin > quick_until) return interval;
    // Before the window: no later than its start.
    if (since_begin < quick_from) return std::clamp(quick_from - since_begin, quick_interval(), interval);
    return quick_interval();
}

Gate default_gate(const config::Cluster& cluster, const config::Role& role) {
    const auto defaults = kind_defaults(role);
    const auto& rank0 = detail::node_of(cluster, role, 0);
    Gate gate;
    const bool custom_path = !role.health.path.empty();
    const std::string path = custom_path ? role.health.path : defaults.path;
    const int port = role.health.port ? role.health.port : defaults.port;
    gate.url = base_url(cluster, role, port) + path;
    gate.expect_status = role.health.expect_status;
    gate.deadline = role.health.deadline.count() ? role.health.deadline : defaults.deadline;
    gate.interval = role.health.interval.count() ? role.health.interval : defaults.interval;
    gate.node = rank0.name;
    gate.why = (custom_path ? path : defaults.why) + " == " + std::to_string(gate.expect_status);
    // A `health.path` of the config's own is exactly that one check: the operator chose it.
    if (custom_path) return gate;
    if (role.kind == config::RoleKind::MooncakeMaster) {
        // Recent masters answer 200 with JSON {status, role, ha_state, service_ready, ...} before they
        // serve; older ones a plain "OK" (Mooncake master_admin_service.cpp, rpc_service.cpp).
        gate.why += ", service_ready true if reported";
        gate.checks.push_back({CheckKind::ServiceReady, gate.url, gate.expect_status, {}, gate.why});
    } else if (role.kind == config::RoleKind::Router) {
        add_router_checks(cluster, role, gate);
    }
    return gate;
}

Gate bootstrap_gate(const config::Cluster& cluster, const config::Role& prefill) {
    const auto& rank0 = detail::node_of(cluster, prefill, 0);
    const int port = prefill.effective_bootstrap_port();
    // Bounded by the group's own readiness: a group that passes its gate has long started the
    // bootstrap server, and one that dies is caught by the liveness watch.
    const Gate readiness = default_gate(cluster, prefill);
    Gate gate;
    gate.url = "http://" + routable_address(prefill, rank0) + ":" + std::to_string(port) + "/health";
    gate.deadline = readiness.deadline;
    gate.interval = readiness.interval;
    gate.node = rank0.name;
    gate.why = "GET " + routable_address(prefill, rank0) + ":" + std::to_string(port) + "/health == 200";
    return gate;
}

}  // namespace pdctl::plan
