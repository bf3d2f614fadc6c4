#pragma once
// What every use case works on: the validated config, its plan, the redactor that knows its secrets,
// the executor that reaches its nodes, chosen once from the config, and the clock and HTTP prober it
// waits and probes with, as the engine receives them: real ones from the command line, fakes in tests.

#include <memory>
#include <string>
#include <vector>

#include "pdctl/backend/make_backend.hpp"
#include "pdctl/config/model.hpp"
#include "pdctl/engine/clock.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"
#include "pdctl/exec/transport_choice.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::ops {

struct Deployment {
    config::Cluster cluster;
    plan::Plan plan;
    util::Redactor redactor;
    backend::ChosenBackend chosen;               // owns the executor and the backend
    backend::ClusterBackend* backend = nullptr;  // always set: ssh, local or slurm, as the config says
    exec::Executor* executor = nullptr;          // the backend's
    // Runs a person's command on a node (exec, stack): the executor, or under SLURM srun into a job.
    exec::Executor* on_nodes = nullptr;
    exec::SshTransports* ssh_transports =
        nullptr;  // the executor, with `executor: ssh`: which transport each node gets
    // Every wait and every timing of a use case: the engine's gates, heal's passes, a drill's detect and
    // recover times. Always set (open_deployment refuses without one).
    engine::Clock* clock = nullptr;
    // Every HTTP request of a use case but the load generator's: gates, status probes, the router's
    // worker API, smoke, the servers' counters. Always set, like the clock.
    health::HttpProber* prober = nullptr;
};

// Whether a verb may fall back to the embedded simulated cluster when no cluster file is named. A verb
// that runs unattended (`heal` from its timer) must not: it would start a simulator on the host.
enum class EmbeddedFallback { kAllowed, kRefused };

// The config alone, validated: `path` (the -c flag), else $PDCTL_CONFIG, else ./pdctl.yaml, else the
// embedded profile (when allowed). Throws config::ConfigError, or Failure (usage) for a file that cannot
// be read or, with kRefused, for no file named at all.
config::Cluster load_cluster(const std::string& path, EmbeddedFallback fallback = EmbeddedFallback::kAllowed);

// What a verb will do with the deployment: only read the config and the plan (`plan`, `doctor --static`),
// drive the deployment (start, stop, status, logs, ...: under SLURM through the scheduler, from this
// machine), or run its own commands on the nodes (exec, push, pull, stack, the live doctor), which the
// backend may refuse: SLURM serves exec and stack inside the deployment's jobs, not push, pull or the
// live doctor.
enum class Purpose { kPlanOnly, kDrive, kOnNodes };

struct OpenOptions {
    bool accept_new_host_keys = false;  // SSH: trust and record unknown host keys (OpenSSH accept-new)
    Purpose purpose = Purpose::kDrive;
    std::string verb;  // named when the purpose is refused
    // Time and HTTP for the deployment's use cases: the caller's, built once (the command line's real
    // ones live as long as the process). Both required.
    engine::Clock* clock = nullptr;
    health::HttpProber* prober = nullptr;
};

// The config's secret values (its secret env keys, the values of secret flags in its programs' argv),
// to be replaced wherever text about it is shown.
util::Redactor secrets_of(const config::Cluster& cluster, const plan::Plan& plan);

// Builds the plan, learns the secrets, picks the executor, takes the clock and the prober (a missing one
// is an internal error). kOnNodes asks the backend whether it serves the
// verb: a refusal is a usage error (exit 2) naming it.
Deployment open_deployment(config::Cluster cluster, const OpenOptions& options);

// With `executor: ssh`: the transport of every node of the cluster, in config order (runs `ssh -G` for
// the nodes on `auto`, in parallel); empty for the local executor.
std::vector<exec::NodeTransport> transport_choices(const Deployment& deployment);

}  // namespace pdctl::ops
