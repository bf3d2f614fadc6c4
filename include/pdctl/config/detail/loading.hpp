#pragma once
// Internal to the config layer: what the cluster loader and the role loader share while reading
// one cluster file.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/config/detail/yaml_reader.hpp"
#include "pdctl/config/env_file.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/model.hpp"
#include "pdctl/config/slurm_allocation.hpp"

namespace pdctl::config::detail {

struct LoadContext {
    YamlContext yaml;  // the cluster file and the diagnostics of the whole load
    const FileSource* files = nullptr;
    std::vector<std::string> secret_keys;  // `secrets:`
    std::vector<EnvVar> shared_env;        // `env_files:`, only for ${VAR} in profiles
    AllocationReader allocation;           // `nodes: from-allocation` only
    bool nodes_from_allocation = false;    // roles may then name nodes by position ("1-4")
    // Every name a $VAR of any env file found (Cluster::env_references). Mutable: env files are read
    // deep inside the role loader, which otherwise only reads the context.
    mutable std::vector<std::string> env_references;
};

// `defaults:` as it applies to every role.
struct RoleDefaults {
    RuntimeKind runtime = RuntimeKind::Docker;
    ContainerSettings container;
    int gpus_per_node = 0;
    int stop_grace_seconds = 30;
    Duration stall_after{kDefaultStallAfter};
    std::string cache_dir;
};

// Node and role names end up in container names, labels and file names on the nodes.
bool is_valid_name(const std::string& name);
inline constexpr const char* kNameRule =
    "use letters, digits, `.`, `_` and `-`, starting with a letter or digit";

// `ssh:` / `container:` under `parent`, each field overriding what `out` holds (the defaults).
void read_ssh(const MapReader& parent, SshSettings& out);
// `cache:` under `parent`: the directory on each node that keeps an SGLang role's compiled kernels.
void read_cache_dir(const MapReader& parent, std::string& out);
void read_container(const MapReader& parent, ContainerSettings& out);

// Reads the env file named by `item` (relative to the cluster file) and parses it with `base` for
// ${VAR}. Its errors keep their own file:line:col, under the key path `key_path[name].KEY`.
// nullopt when the file cannot be read, reported at the YAML line that names it.
std::optional<EnvFile> load_env_file(const LoadContext& ctx, const Item& item, const std::string& key_path,
                                     const std::vector<EnvVar>& base);

}  // namespace pdctl::config::detail
