#pragma once
// What every verb needs: the options shared by all verbs, the deployment (config, plan, executor,
// redactor) and a reporter.

#include <memory>
#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/report/progress_reporter.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::cli {

struct GlobalOptions {
    std::string config_path;  // -c/--config; else PDCTL_CONFIG; else ./pdctl.yaml; else the embedded profile
    bool config_given = false;  // -c was on the command line, even as "" (an unset variable in a unit)
    bool json = false;
    int verbosity = 0;
    bool accept_new_host_keys = false;  // SSH: trust and record unknown host keys (OpenSSH accept-new)
    // Time and HTTP for every use case, through its deployment: the real ones, which main builds.
    engine::Clock* clock = nullptr;
    health::HttpProber* prober = nullptr;
};

// The deployment every verb works on (ops/deployment.hpp).
using Context = ops::Deployment;
using ops::Purpose;

// The config alone, validated: -c, else $PDCTL_CONFIG, else ./pdctl.yaml, else the embedded profile.
// `-c ""` (a unit's ${PDCTL_CONFIG} with nothing set) names no file: refused, never the fallback.
config::Cluster load_cluster(const GlobalOptions& options,
                             ops::EmbeddedFallback fallback = ops::EmbeddedFallback::kAllowed);
// How a verb opens a deployment: its purpose, and the process's one clock and HTTP prober (main's),
// which every use case receives through the deployment.
ops::OpenOptions open_options(const GlobalOptions& options, Purpose purpose, const std::string& verb);
// Loads and validates the config (throws config::ConfigError), builds the plan, picks the executor, and
// has the log file redact the config's secrets. kOnNodes: the backend may refuse `verb` (exit 2).
Context load_context(const GlobalOptions& options, Purpose purpose = Purpose::kDrive,
                     const std::string& verb = {},
                     ops::EmbeddedFallback fallback = ops::EmbeddedFallback::kAllowed);
// A reporter for progress (report/progress_reporter.hpp), teed to --log-file.
std::unique_ptr<engine::Reporter> make_reporter(const GlobalOptions& options, const util::Redactor& redactor);

}  // namespace pdctl::cli
