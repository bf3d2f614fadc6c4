#pragma once
// `pdctl smoke`, the runbook's last step: every SGLang group's rank 0 answers /health_generate (which
// runs a real generation inside that server), and one /generate through the router returns text.

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"

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
    std::chrono::milliseconds timeout{std::chrono::seconds(120)};  // each request's answer
    // --role / --group: only these sglang groups, and the routers selected, or else the routers that
    // send to a selected group. Empty: every group and every router.
    plan::Scope scope;
};

// The health checks of the groups (at once), then one /generate through each router, last. Throws
// Failure (usage) when the config has no router, or the scope names none and no router sends to it.
std::vector<SmokeCheck> run_smoke(const Deployment& deployment, const SmokeRequest& request);

}  // namespace pdctl::ops
