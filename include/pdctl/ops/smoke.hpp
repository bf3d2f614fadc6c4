#pragma once
// `pdctl smoke`, the runbook's last step: every SGLang group's rank 0 answers /health_generate (which
// runs a real generation inside that server), and one /generate through the router returns text.

#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"

namespace pdctl::ops {

// One request smoke made, and what came back.
struct SmokeCheck {
    std::string name;  // health_generate | generate
    std::string role;
    std::string node;
    std::string url;
    int status = 0;
    long long latency_ms = 0;
    std::string text;   // generate only
    std::string error;  // empty = passed
};

bool all_passed(const std::vector<SmokeCheck>& checks);

struct SmokeRequest {
    std::string prompt = "Hello";
    int max_new_tokens = 16;
    int timeout_seconds = 120;
};

// The health checks of every group (at once), then the /generate through the router, last. Throws
// Failure (usage) when the config has no router.
std::vector<SmokeCheck> run_smoke(const Deployment& deployment, const SmokeRequest& request);

}  // namespace pdctl::ops
