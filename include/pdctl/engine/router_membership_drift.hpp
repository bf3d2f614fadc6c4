#pragma once
// What a router with a worker API (SMG, sglang-router) lists against the workers the plan gives it.
// Its launch fingerprint leaves the worker list out (plan::router_launch_identity): which workers it
// serves is read from GET /workers and compared here. Pure.

#include <string>
#include <vector>

#include "pdctl/health/router_worker_api.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::engine {

struct MembershipDrift {
    std::vector<std::string> missing;  // configured, not listed: "prefill-3 (http://10.0.0.7:30000, prefill)"
    std::vector<std::string> extra;    // listed, not configured: "http://10.0.0.7:30000 (decode)"
    bool empty() const { return missing.empty() && extra.empty(); }
    // "lists http://… (decode), which the config does not have; does not list prefill-3 (…)"
    std::string describe() const;
};

// A worker counts by its URL (trailing slashes ignored) and its type: a group moved from decode to
// prefill on the same nodes keeps its URL and changes its type.
MembershipDrift membership_drift(const plan::RouterFacts& facts,
                                 const std::vector<health::ListedWorker>& listed);

}  // namespace pdctl::engine
