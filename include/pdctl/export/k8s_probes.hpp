#pragma once
// pdctl's readiness gates as Kubernetes probes (docs/kubernetes.md "Gates → probes"):
//   startupProbe   the gate's deadline: the kubelet keeps probing for failureThreshold × periodSeconds
//                  before it restarts the container, so the window must cover the long weight load
//                  (25 min for Kimi-K3) or a healthy rank is killed half-way through loading;
//   readinessProbe what the gate checks (rank 0's /health; for a router, a real one-token /generate
//                  where the router's image has python3 to send it, else /readiness);
//   livenessProbe  /health once started, slow to give up (SGLang's /health runs a generation).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/export/yaml_text.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::exporter {

struct ProbeTiming {
    int period_seconds = 1;
    int failure_threshold = 1;
};

// The startup window of a gate: the gate's interval as the period (whole seconds, at least 1) and the
// fewest failures with failure_threshold × period_seconds ≥ deadline.
ProbeTiming startup_timing(std::chrono::milliseconds deadline, std::chrono::milliseconds interval);

// Port and path of an http:// URL (a gate check's); nullopt for anything else.
struct HttpTarget {
    int port = 0;
    std::string path = "/";
};
std::optional<HttpTarget> http_target(const std::string& url);

struct StageProbes {
    Tree startup;
    Tree readiness;
    Tree liveness;
    std::vector<std::string> notes;  // what a probe cannot check that the gate does (the role not named)
};

// The three probes of a stage's containers, from its gate.
StageProbes stage_probes(const plan::Stage& stage);

}  // namespace pdctl::exporter
