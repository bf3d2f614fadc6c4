#pragma once
// Every config that ran, kept and read back: a start, restart, rollout or rollback keeps the files its
// config was read from on the coordinator (state/config_store.hpp) and names them in its journal record;
// `pdctl config show|restore RUN` and `rollback` read them back.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/state/config_store.hpp"
#include "pdctl/state/journal.hpp"

namespace pdctl::ops {

// Whether a run of `verb` keeps its config: the verbs that start units from it.
bool keeps_config(const std::string& verb);

// The config as it is now: the files it was read from and a digest of each `files:` source.
state::config_store::Bundle config_bundle(const config::Cluster& cluster);

// The ID the config would be kept under (state/config_store.hpp): what runs from it is named by it.
std::string config_id_of(const config::Cluster& cluster);

// Keeps the deployment's config on the coordinator; its ID, or "" when it could not be kept (said on
// stderr: the run goes on, its record then names no config).
std::string keep_config(const Deployment& deployment);

struct KeptConfig {
    state::journal::RunRecord run;  // the run that named it
    std::string id;
    state::config_store::Bundle bundle;
};

// The config of the run `selector` names: a run id or a unique prefix of one, or `last` (the newest run
// that kept one). Throws Failure: usage for a run that is not in the journal or kept no config,
// unreachable when the coordinator cannot be read.
KeptConfig read_kept_config(const Deployment& deployment, const std::string& selector);

// The config kept under `id`, read from the coordinator and checked against its ID; nullopt with `error`
// set when it cannot be read, is damaged or is not a kept config.
std::optional<state::config_store::Bundle> fetch_kept_config(const Deployment& deployment,
                                                             const std::string& id, std::string& error);

// The kept files loaded as a config again, exactly as they were read (throws config::ConfigError).
config::Cluster load_kept_config(const state::config_store::Bundle& bundle);

// What `config show` prints: each kept file with every secret value of the config replaced.
struct ShownFile {
    std::string path;
    std::string content;  // redacted
};
std::vector<ShownFile> show_kept_config(const KeptConfig& kept);

// Writes the kept files under `dir`, each at its place relative to the folder that holds them all, so
// that the cluster file's relative paths still find its env and profile files. Refuses (usage) to
// overwrite a file. Returns the path of the restored cluster file.
std::string restore_kept_config(const KeptConfig& kept, const std::string& dir);

}  // namespace pdctl::ops
