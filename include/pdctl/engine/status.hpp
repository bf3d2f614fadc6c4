#pragma once
// What `pdctl status` reports: every role and node, read from the nodes and the health endpoints.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/observer.hpp"
#include "pdctl/engine/stall.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::engine {

struct UnitStatus {
    std::string role;
    std::string node;
    std::string address;
    std::string unit;
    int rank = 0;
    std::string state;      // running | pending (in SLURM's queue) | exited | absent | unknown (unreachable)
    std::string scheduler;  // executor: slurm: its job, "job 42 RUNNING (None)"; "" otherwise
    std::string health;     // ok | failing | - (ranks >= 1: judged by liveness only)
    std::string config;     // current | drift | -
    long long uptime_seconds = -1;
    std::string exit_code;
    int pid = 0;
    // sglang units that run, from their log (engine/stall.hpp); empty / -1 for the others.
    std::string phase;                 // "serving" while the group serves, else its start-up phase id
    long long log_quiet_seconds = -1;  // since its log was last written, by the node's clock
    std::string progress;              // moving | waiting | stalled
    std::string stall;                 // for a stalled rank: why ("stalled while allocating KV cache: ...")

    bool stalled() const { return progress == "stalled"; }
};

// `status --metrics`: what a role's Prometheus page says (rank 0's for a group).
struct RoleMetrics {
    std::string url;
    std::string error;  // why there are none: no answer, HTTP 404 without --enable-metrics, ...
    // Exported name -> value, the ones operators watch, in display order (engine/status_metrics.cpp).
    std::vector<std::pair<std::string, double>> values;

    std::optional<double> find(const std::string& name) const;
};

// MiniLB without --probe: the last request a gate sent through the router (start, restart, heal), as
// the journal recorded it. MiniLB's own /health is 200 whatever its workers do, and a broken KV path
// passes every worker's /health: this is the evidence status has without sending a request.
struct LastGateRequest {
    std::string error;   // the journal could not be read: why (the other fields are then empty)
    bool found = false;  // the journal has one
    std::string run;
    std::string verb;
    std::string at;              // UTC
    long long age_seconds = -1;  // before this status, by this machine's clock
    bool passed = false;
    std::string failure;  // why it failed
};

struct RoleStatus {
    std::string role;  // the stage: the role, or for a group after the first NAME-K
    std::string kind;
    std::string config_role;  // the `roles:` entry it is a group of (plan::Stage)
    int group = 1;
    int groups = 1;
    bool ready = false;  // its gate passes
    std::string gate_url;
    std::string gate_answer;  // "HTTP 200", "Connection refused", ...
    std::vector<UnitStatus> units;
    std::optional<RoleMetrics> metrics;           // with --metrics, for the kinds that export any
    std::optional<LastGateRequest> last_request;  // a MiniLB router without --probe
    // Every unit absent because an operator stopped the group (ops/status.cpp, from the coordinator's
    // intent): "by alice@h1 at 2026-12-06T10:00:00Z (pdctl stop --group decode-2)", and the command
    // that brings it back. Empty otherwise.
    std::string stopped_on_purpose;
    std::string bring_back;
};

struct ClusterStatus {
    std::string cluster;
    std::string state;  // running | degraded | stopped
    std::vector<RoleStatus> roles;
    std::vector<UnitStatus> strays;                  // units of this cluster the config does not name
    std::map<std::string, std::string> unreachable;  // node -> why (the transport error)
    // A request was sent through each router (StatusRequest::probe); otherwise its readiness is what
    // it says of itself and its workers (MiniLB: its workers' /health), which a broken KV path passes.
    bool probed = false;
};

struct StatusRequest {
    // The plan is a part of the cluster (--role/--group, plan::scope_plan): no strays are looked for,
    // and only its own nodes' reachability counts.
    bool scoped = false;
    // Also scrape each role's Prometheus page (sglang rank 0, the master), beside the probes.
    bool metrics = false;
    // Send each router gate's one-token POST /generate (status --probe, heal, drill), as start does.
    bool probe = false;
    // Without `probe`: the last request a gate sent through the MiniLB router of stage ROLE (the journal's,
    // ops/status.cpp), asked from that stage's probe task, beside the other probes. One that failed
    // makes the router not ready: nothing since has shown a request passing. Unset: not looked up.
    std::function<LastGateRequest(const std::string& role)> last_request = {};
};

ClusterStatus collect_status(const plan::Plan& plan, exec::Executor& executor, health::HttpProber& prober,
                             const StatusRequest& request = {});
ExitCode status_exit_code(const ClusterStatus& status);

}  // namespace pdctl::engine
