#pragma once
// The one place that reads the config's `executor:` (besides its loader): the backend of a run, with
// the executor it owns.

#include <memory>

#include "pdctl/backend/cluster_backend.hpp"
#include "pdctl/config/model.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::backend {

struct BackendOptions {
    bool accept_new_host_keys = false;  // SSH: trust and record unknown host keys (OpenSSH accept-new)
};

struct ChosenBackend {
    std::unique_ptr<exec::Executor> executor;       // what the backend runs its commands with
    exec::SshTransports* ssh_transports = nullptr;  // the executor, with `executor: ssh`
    // What runs a person's command on a node (exec, stack) when `executor` cannot: under SLURM, srun
    // inside one of the deployment's jobs (backend/srun_executor.hpp). Null: `executor` reaches the
    // nodes itself.
    std::unique_ptr<exec::Executor> into_nodes;
    std::unique_ptr<ClusterBackend> backend;
};

// The preflight keeps its own copy of the cluster, the whole plan and the redactor (with the secrets
// known so far).
ChosenBackend make_backend(const config::Cluster& cluster, const plan::Plan& plan,
                           const util::Redactor& redactor, const BackendOptions& options);

}  // namespace pdctl::backend
