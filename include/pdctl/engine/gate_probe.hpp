#pragma once
// One round of a stage's gate: every check of plan::Gate in order (GET status, a master's
// service_ready, a router's /workers, a one-token POST /generate through the router), stopping at
// the first that fails. Used by `start` while it waits and by `status`, so both say the same thing.

#include <chrono>
#include <string>

#include "pdctl/health/http_prober.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::engine {

struct GateAnswer {
    bool passed = false;
    // What the first failing check said: "HTTP 503", "HTTP 200, service_ready: false (ha_state
    // starting)", "missing from /workers: http://…", "POST /generate: HTTP 500: KV transfer timed
    // out". Once passed, what each check saw: "HTTP 200" or "HTTP 200, 2 workers healthy, /generate
    // answered".
    std::string answer;
    // The failing check got no HTTP answer at all (refused, reset, or nothing within its timeout).
    bool unanswered = false;
    // The request through the router was answered with a failure of the KV path (a transfer or
    // bootstrap error, health/transfer_errors.hpp): an answer from the stack, not a sign of a start
    // still under way, so start fails fast on it (EngineOptions::transfer_error_limit).
    bool kv_path_failure = false;
};

struct GateTimeouts {
    std::chrono::milliseconds get{std::chrono::seconds(2)};
    std::chrono::milliseconds generate{std::chrono::seconds(30)};  // one token through prefill and decode
};

// Whether a router gate's POST /generate is sent. `start` and `status --probe` send it: only a request
// proves the KV path. A plain `status` does not: looking must not add load to a busy router or count
// in its metrics, so it reads what the router says of itself and its workers.
enum class GenerateCheck { kSend, kSkip };

GateAnswer probe_gate(const plan::Gate& gate, health::HttpProber& prober, const GateTimeouts& timeouts,
                      GenerateCheck generate = GenerateCheck::kSend);

}  // namespace pdctl::engine
