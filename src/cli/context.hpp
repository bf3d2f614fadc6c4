#pragma once
// What every verb needs: the options shared by all verbs, the loaded config, the plan, an executor,
// the redactor and a reporter.

#include <memory>
#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/report/transport_view.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::cli {

struct GlobalOptions {
    std::string config_path;  // -c/--config; else PDCTL_CONFIG; else ./pdctl.yaml; else the embedded profile
    bool json = false;
    int verbosity = 0;
    bool accept_new_host_keys = false;  // SSH: trust and record unknown host keys (OpenSSH accept-new)
};

struct Context {
    config::Cluster cluster;
    plan::Plan plan;
    util::Redactor redactor;
    std::unique_ptr<exec::Executor> executor;  // always set: local or SSH, as the config says
    exec::SshTransports* ssh_transports =
        nullptr;  // the executor, with `executor: ssh`: which transport each node gets
};

// The config alone, validated: -c, else $PDCTL_CONFIG, else ./pdctl.yaml, else the embedded profile.
config::Cluster load_cluster(const GlobalOptions& options);
// What a verb will do with the context: only read the config and the plan (`plan`, `doctor --static`),
// drive the deployment (start, stop, status, logs, ...: under SLURM through the scheduler, from this
// machine), or run its own commands on the nodes (exec, push, pull, stack, the live doctor), which
// pdctl does not reach under `executor: slurm`.
enum class Purpose { kPlanOnly, kDrive, kOnNodes };

// Loads and validates the config (throws config::ConfigError), builds the plan, picks the executor.
// kOnNodes refuses `executor: slurm` (exit 2), naming `verb`.
Context load_context(const GlobalOptions& options, Purpose purpose = Purpose::kDrive,
                     const std::string& verb = {});
// With `executor: ssh`: the transport of every node of the cluster, in config order (runs `ssh -G` for
// the nodes on `auto`, in parallel); empty for the local executor.
std::vector<report::NodeTransport> transport_choices(const Context& context);
// A reporter for progress: JSON Lines with --json, else text lines.
std::unique_ptr<engine::Reporter> make_reporter(const GlobalOptions& options, const util::Redactor& redactor);

}  // namespace pdctl::cli
