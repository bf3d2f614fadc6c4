#pragma once
// What the answers of the richer gate checks say, pure so that they are tested (and fuzzed) without a
// server: a Mooncake master's JSON /health, and a router's /workers list.

#include <optional>
#include <string>
#include <vector>

namespace pdctl::health {

// nullopt when a master's /health body says it serves: a plain body ("OK", older masters) or JSON
// without `service_ready`, or with it true. Otherwise the reason, e.g. "service_ready: false
// (ha_state starting)". Recent masters answer 200 with service_ready false while they start
// (Mooncake master_admin_service.cpp).
std::optional<std::string> master_not_ready(const std::string& body);

// nullopt when the router's GET /workers body (SMG and sgl-model-gateway: {"workers": [{"url",
// "worker_type", "is_healthy", "status"?}, ...]}) lists every URL of `expected`, each healthy.
// Otherwise what is wrong, naming each worker: "missing from /workers: http://10.0.0.5:30000;
// not healthy: http://10.0.0.1:30000 (prefill, status pending)".
std::optional<std::string> workers_not_ready(const std::string& body,
                                             const std::vector<std::string>& expected);

}  // namespace pdctl::health
