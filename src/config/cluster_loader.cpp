#include <algorithm>
#include <tuple>

#include "pdctl/config/detail/coordinator.hpp"
#include "pdctl/config/detail/doctor_loader.hpp"
#include "pdctl/config/detail/env_parser.hpp"
#include "pdctl/config/detail/files_loader.hpp"
#include "pdctl/config/detail/role_loader.hpp"
#include "pdctl/config/detail/slurm_loader.hpp"
#include "pdctl/config/loader.hpp"

namespace pdctl::config {

namespace {

using detail::Item;
using detail::LoadContext;
using detail::MapReader;
using detail::RoleDefaults;

bool is_valid_cluster_name(const std::string& name) {
    const auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    return !name.empty() && ok(name[0]) &&
           std::all_of(name.begin(), name.end(), [&](char c) { return ok(c) || c == '-'; });
}

void read_header(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    if (top.require("cluster", "a short name such as kimi3-pro6000; it labels everything pdctl starts") &&
        top.string("cluster", cluster.name) && !is_valid_cluster_name(cluster.name)) {
        ctx.yaml.error(top.find("cluster")->value_where, "cluster",
                       "invalid cluster name `" + cluster.name + "`",
                       "use lowercase letters, digits and `-`, starting with a letter or digit");
    }
    top.choice("executor", cluster.executor,
               {{"ssh", ExecutorKind::Ssh}, {"local", ExecutorKind::Local}, {"slurm", ExecutorKind::Slurm}});
    top.choice("drills", cluster.drills_allowed, {{"allowed", true}, {"refused", false}});
    // The same directory on every node: a relative path would depend on each login's home.
    if (top.string("state_dir", cluster.state_dir) && cluster.state_dir.rfind('/', 0) != 0) {
        ctx.yaml.error(top.find("state_dir")->value_where, "state_dir", "must be an absolute path");
    }
}

void read_secrets_and_env_files(LoadContext& ctx, const MapReader& top) {
    std::vector<Item> secrets;
    top.items("secrets", secrets);
    for (std::size_t i = 0; i < secrets.size(); ++i) {
        if (!detail::is_valid_env_key(secrets[i].value)) {
            ctx.yaml.error(secrets[i].where, "secrets[" + std::to_string(i) + "]",
                           "invalid environment variable name `" + secrets[i].value + "`",
                           "letters, digits and `_`, not starting with a digit");
        }
        ctx.secret_keys.push_back(secrets[i].value);
    }
    std::vector<Item> files;
    top.items("env_files", files);
    for (const auto& item : files) {
        if (auto file = detail::load_env_file(ctx, item, "env_files", ctx.shared_env)) {
            for (auto& var : file->vars) ctx.shared_env.push_back(std::move(var));
        }
    }
}

RoleDefaults read_defaults(const LoadContext& ctx, const MapReader& top, ExecutorKind executor,
                           SshSettings& ssh) {
    RoleDefaults defaults;
    defaults.runtime = detail::default_runtime(executor);
    const auto* entry = top.find("defaults");
    if (!entry) return defaults;
    MapReader map(ctx.yaml, entry->value, "defaults", entry->value_where);
    map.check_keys(
        {"ssh", "runtime", "container", "gpus_per_node", "stop_grace_seconds", "stall_after", "cache"});
    detail::read_ssh(map, ssh);
    map.choice("runtime", defaults.runtime,
               {{"docker", RuntimeKind::Docker}, {"process", RuntimeKind::Process}});
    detail::read_container(map, defaults.container);
    map.integer("gpus_per_node", defaults.gpus_per_node, 1, 1024);
    map.integer("stop_grace_seconds", defaults.stop_grace_seconds, 0, 24 * 60 * 60);
    map.duration("stall_after", defaults.stall_after);
    detail::read_cache_dir(map, defaults.cache_dir);
    return defaults;
}

std::vector<Node> read_nodes(const LoadContext& ctx, const MapReader& top, const SshSettings& ssh) {
    std::vector<Node> nodes;
    if (!top.require("nodes", "the machines, e.g. - {name: n1, address: 10.0.0.1}")) return nodes;
    const auto* entry = top.find("nodes");
    if (!entry->value.IsSequence()) {
        ctx.yaml.error(entry->value_where, "nodes", "expected a list, got " + detail::describe(entry->value));
        return nodes;
    }
    if (entry->value.size() == 0) ctx.yaml.error(entry->value_where, "nodes", "needs at least one node");
    std::size_t index = 0;
    for (const auto& element : entry->value) {
        const std::string path = "nodes[" + std::to_string(index++) + "]";
        MapReader map(ctx.yaml, element, path, ctx.yaml.at(element, entry->value_where));
        if (!map.is_map()) continue;
        map.check_keys({"name", "address", "compute_address", "ssh"});
        Node node;
        node.where = map.where();
        node.ssh = ssh;
        if (map.require("name") && map.string("name", node.name)) {
            const auto& name_where = map.find("name")->value_where;
            const auto first = std::find_if(nodes.begin(), nodes.end(),
                                            [&](const Node& other) { return other.name == node.name; });
            if (!detail::is_valid_name(node.name)) {
                ctx.yaml.error(name_where, path + ".name", "invalid node name `" + node.name + "`",
                               detail::kNameRule);
            } else if (first != nodes.end()) {
                ctx.yaml.error(name_where, path + ".name", "duplicate node name `" + node.name + "`",
                               "first defined at line " + std::to_string(first->where.line));
            }
        }
        if (map.require("address", "the IP or hostname pdctl and the other nodes reach this node at") &&
            map.string("address", node.address) && node.address.empty()) {
            ctx.yaml.error(map.find("address")->value_where, path + ".address", "must not be empty");
        }
        if (map.string("compute_address", node.compute_address) && node.compute_address.empty()) {
            ctx.yaml.error(map.find("compute_address")->value_where, path + ".compute_address",
                           "must not be empty", "leave it out when the node has one address");
        }
        detail::read_ssh(map, node.ssh);
        nodes.push_back(std::move(node));
    }
    return nodes;
}

void read_roles(const LoadContext& ctx, const MapReader& top, const RoleDefaults& defaults,
                Cluster& cluster) {
    if (!top.require("roles", "e.g. mooncake-master, prefill, decode and router")) return;
    const auto* entry = top.find("roles");
    MapReader roles(ctx.yaml, entry->value, "roles", entry->value_where);
    if (!roles.is_map()) return;
    if (roles.entries().empty()) ctx.yaml.error(entry->value_where, "roles", "needs at least one role");
    std::vector<std::string> keys;
    for (const auto& role_entry : roles.entries()) keys.push_back(role_entry.key);
    std::vector<detail::RoleRefs> refs;
    for (const auto& role_entry : roles.entries()) {
        detail::RoleRefs role_refs;
        std::vector<std::vector<std::string>> groups;
        const auto role = detail::load_role(ctx, role_entry, defaults, cluster.nodes, role_refs, groups);
        detail::expand_groups(ctx.yaml, role, role_refs, groups, keys, cluster.roles, refs);
    }
    detail::expand_group_references(cluster.roles, refs);
    detail::link_roles(cluster.roles, refs, ctx.yaml);
}

// The cluster file first, then the other files in order of first mention; within a file by
// position, so the operator can fix them top to bottom. A mistake in a profile shared by several
// roles is reported once.
std::vector<Diagnostic> ordered(std::vector<Diagnostic> items, const std::string& cluster_file) {
    std::vector<std::string> files{cluster_file};
    for (const auto& item : items) {
        if (std::find(files.begin(), files.end(), item.where.file) == files.end())
            files.push_back(item.where.file);
    }
    const auto rank = [&](const Diagnostic& d) {
        const auto file = std::find(files.begin(), files.end(), d.where.file) - files.begin();
        return std::tuple(file, d.where.line, d.where.column);
    };
    std::stable_sort(items.begin(), items.end(),
                     [&](const Diagnostic& a, const Diagnostic& b) { return rank(a) < rank(b); });
    std::vector<Diagnostic> unique;
    for (auto& item : items) {
        const bool seen = std::any_of(unique.begin(), unique.end(), [&](const Diagnostic& other) {
            return other.where.file == item.where.file && other.where.line == item.where.line &&
                   other.where.column == item.where.column && other.message == item.message;
        });
        if (!seen) unique.push_back(std::move(item));
    }
    return unique;
}

[[noreturn]] void fail(const Diagnostics& diags, const std::string& path) {
    throw ConfigError(ordered(diags.items(), path));
}

void read_document(const YAML::Node& root, const FileSource& files, const AllocationReader& allocation,
                   Diagnostics& diags, Cluster& cluster) {
    LoadContext ctx{{cluster.config_path, &diags}, &files, {}, {}, allocation, false, {}};
    MapReader top(ctx.yaml, root, "", ctx.yaml.at(root, {cluster.config_path, 1, 1}));
    if (!top.is_map()) return;
    // `x-` keys are free for YAML anchors (x-common: &common ...), as in docker compose files.
    std::vector<std::string> allowed = {"cluster",   "executor", "state_dir", "coordinator", "secrets",
                                        "env_files", "defaults", "nodes",     "roles",       "files",
                                        "slurm",     "doctor",   "drills"};
    for (const auto& entry : top.entries()) {
        if (entry.key.rfind("x-", 0) == 0) allowed.push_back(entry.key);
    }
    top.check_keys(allowed);

    read_header(ctx, top, cluster);
    detail::read_slurm(ctx, top, cluster);
    read_secrets_and_env_files(ctx, top);
    for (const auto& var : ctx.shared_env)
        if (!var.assumption.empty()) cluster.assumptions.push_back({var.key, var.assumption, var.where});
    cluster.shared_env = ctx.shared_env;
    SshSettings ssh;
    const RoleDefaults defaults = read_defaults(ctx, top, cluster.executor, ssh);
    if (detail::read_allocation_nodes(ctx, top, cluster)) {
        // Without the allocation's nodes every role's placement would be an error of its own.
        if (cluster.nodes.empty()) return;
        ctx.nodes_from_allocation = true;
    } else {
        cluster.nodes = read_nodes(ctx, top, ssh);
    }
    detail::read_coordinator(ctx, top, cluster);
    read_roles(ctx, top, defaults, cluster);
    detail::check_slurm_roles(ctx.yaml, cluster);
    detail::read_files(ctx, top, cluster);
    detail::read_doctor_settings(ctx, top, cluster);
    cluster.env_references = ctx.env_references;
}

// Remembers every file it reads, once, for Cluster::sources.
class RecordingFileSource : public FileSource {
  public:
    RecordingFileSource(const FileSource& inner, std::vector<SourceFile>& read)
        : inner_(inner), read_(read) {}
    std::optional<std::string> read(const std::string& path) const override {
        auto content = inner_.read(path);
        if (content && std::none_of(read_.begin(), read_.end(),
                                    [&](const SourceFile& file) { return file.path == path; }))
            read_.push_back({path, *content});
        return content;
    }
    std::string resolve(const std::string& relative_to, const std::string& path) const override {
        return inner_.resolve(relative_to, path);
    }

  private:
    const FileSource& inner_;
    std::vector<SourceFile>& read_;
};

}  // namespace

Cluster load_cluster(const std::string& path, const FileSource& files, const AllocationReader& allocation) {
    Diagnostics diags;
    Cluster cluster;
    cluster.config_path = path;
    const RecordingFileSource recorded(files, cluster.sources);
    const auto content = recorded.read(path);
    if (!content) {
        diags.error({path}, "", "cannot read the cluster file");
        fail(diags, path);
    }
    try {
        const YAML::Node root = YAML::Load(*content);
        if (root.IsNull()) {
            diags.error({path}, "", "the cluster file is empty", "docs/config.md describes its keys");
        } else {
            read_document(root, recorded, allocation, diags, cluster);
        }
    } catch (const YAML::Exception& e) {
        // Syntax errors; the readers check types before converting, so nothing else should land here.
        diags.error({path, e.mark.line + 1, e.mark.column + 1}, "", "invalid YAML: " + e.msg);
    }
    if (!diags.empty()) fail(diags, path);
    return cluster;
}

}  // namespace pdctl::config
