#include "sim/router_metrics.hpp"

#include <fmt/format.h>

namespace pdsim {
namespace {

// A worker's health as both routers export it: 1 ready, 0 otherwise (pending, not ready, failed).
int health_value(const Worker& worker) {
    return worker.serving() && worker.healthy ? 1 : 0;
}

std::string smg_text(const WorkerPool& pool, std::uint64_t requests) {
    std::string text =
        "# HELP smg_worker_health Worker health status (1=healthy, 0=unhealthy)\n"
        "# TYPE smg_worker_health gauge\n";
    // SMG's health gauge carries the worker URL only; the type is in the pool-size gauge.
    for (const auto& worker : pool.all())
        if (worker->registered)
            text +=
                fmt::format("smg_worker_health{{worker=\"{}\"}} {}\n", worker->url, health_value(*worker));
    text +=
        "# HELP smg_worker_pool_size Number of registered workers by type\n"
        "# TYPE smg_worker_pool_size gauge\n";
    for (const auto role : {Worker::Role::kPrefill, Worker::Role::kDecode}) {
        int registered = 0;
        for (const auto& worker : pool.list(role)) registered += worker->registered ? 1 : 0;
        text += fmt::format(
            "smg_worker_pool_size{{worker_type=\"{}\",connection_mode=\"http\",model=\"default\"}} {}\n",
            role == Worker::Role::kPrefill ? "prefill" : "decode", registered);
    }
    text +=
        "# HELP smg_router_requests_total Total requests processed\n"
        "# TYPE smg_router_requests_total counter\n";
    text += fmt::format(
        "smg_router_requests_total{{router_type=\"http\",backend_type=\"pd\",connection_mode=\"http\","
        "model=\"default\",endpoint=\"generate\",streaming=\"false\"}} {}\n",
        requests);
    return text;
}

std::string sglang_router_text(const WorkerPool& pool, std::uint64_t requests) {
    std::string text = "# TYPE sgl_router_worker_health gauge\n";
    int active = 0;
    for (const auto& worker : pool.all()) {
        if (!worker->registered) continue;
        ++active;
        text +=
            fmt::format("sgl_router_worker_health{{worker=\"{}\"}} {}\n", worker->url, health_value(*worker));
    }
    text += fmt::format("# TYPE sgl_router_active_workers gauge\nsgl_router_active_workers {}\n", active);
    text += fmt::format(
        "# TYPE sgl_router_requests_total counter\nsgl_router_requests_total{{route=\"/generate\"}} {}\n",
        requests);
    return text;
}

}  // namespace

std::string router_metrics_text(const WorkerPool& pool, bool smg, std::uint64_t requests) {
    return smg ? smg_text(pool, requests) : sglang_router_text(pool, requests);
}

}  // namespace pdsim
