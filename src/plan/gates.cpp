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

// Readiness per kind (SGLang entrypoints/engine.py and http_server.py, the router's startup, Mooncake
// mooncake-store/src/master.cpp): an SGLang group is ready when rank 0's /health is 200 (its port
// stays closed until every rank joined and warm-up passed); the Rust router needs /readiness (its
// /health is liveness only); MiniLB has only /health.
KindDefaults kind_defaults(const config::Role& role) {
    using namespace std::chrono;
    switch (role.kind) {
        case config::RoleKind::MooncakeMaster:
            return {"/health", role.metrics_port ? role.metrics_port : kMooncakeMetricsPort, minutes(2),
                    seconds(1), "metrics /health"};
        case config::RoleKind::Sglang:
            return {"/health", service_port(role), minutes(30), seconds(2), "rank0 /health"};
        case config::RoleKind::Router:
            if (role.mini_lb)
                return {"/health", service_port(role), minutes(5), seconds(1), "MiniLB /health"};
            return {"/readiness", service_port(role), minutes(5), seconds(1), "router /readiness"};
        case config::RoleKind::Generic:
            return {"/health", role.health.port, minutes(10), seconds(2), "/health"};
    }
    return {};
}

}  // namespace

Gate default_gate(const config::Cluster& cluster, const config::Role& role) {
    const auto defaults = kind_defaults(role);
    const auto& rank0 = detail::node_of(cluster, role, 0);
    Gate gate;
    const std::string path = role.health.path.empty() ? defaults.path : role.health.path;
    const int port = role.health.port ? role.health.port : defaults.port;
    gate.url = "http://" + routable_address(role, rank0) + ":" + std::to_string(port) + path;
    gate.expect_status = role.health.expect_status;
    gate.deadline = role.health.deadline.count() ? role.health.deadline : defaults.deadline;
    gate.interval = role.health.interval.count() ? role.health.interval : defaults.interval;
    gate.node = rank0.name;
    gate.why = (role.health.path.empty() ? defaults.why : path) + " == " + std::to_string(gate.expect_status);
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
