#include "pdctl/config/detail/files_loader.hpp"

#include <algorithm>

namespace pdctl::config::detail {
namespace {

// "0644", "644" or "0755" (YAML reads an unquoted 0644 as the string it is written as).
std::optional<int> parse_mode(const std::string& text) {
    if (text.size() < 3 || text.size() > 4) return std::nullopt;
    int mode = 0;
    for (const char c : text) {
        if (c < '0' || c > '7') return std::nullopt;
        mode = mode * 8 + (c - '0');
    }
    return mode;
}

// Paths go to the nodes as positional parameters, never into script text; what remains to refuse is
// what no remote tool handles well: relative paths, a directory as target, control characters.
std::string dest_problem(const std::string& dest) {
    if (dest.empty() || dest.front() != '/') return "must be an absolute path";
    if (dest.back() == '/') return "names a directory; give the file's full path";
    if (std::any_of(dest.begin(), dest.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
        return "must not contain control characters";
    return {};
}

void check_names(const LoadContext& ctx, const std::vector<Item>& items, const std::string& path,
                 const std::vector<std::string>& known, const std::string& noun) {
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (std::find(known.begin(), known.end(), items[i].value) != known.end()) continue;
        std::string hint = did_you_mean(items[i].value, known);
        if (hint.empty()) hint = "one of the `" + noun + "s:` names";
        ctx.yaml.error(items[i].where, path + "[" + std::to_string(i) + "]",
                       "no " + noun + " named `" + items[i].value + "`", hint);
    }
}

std::vector<std::string> names_of(const std::vector<Node>& nodes) {
    std::vector<std::string> names;
    for (const auto& node : nodes) names.push_back(node.name);
    return names;
}

std::vector<std::string> names_of(const std::vector<Role>& roles) {
    std::vector<std::string> names;
    for (const auto& role : roles) names.push_back(role.name);
    return names;
}

}  // namespace

void read_files(const LoadContext& ctx, const MapReader& top, Cluster& cluster) {
    const auto* entry = top.find("files");
    if (!entry) return;
    if (!entry->value.IsSequence()) {
        ctx.yaml.error(entry->value_where, "files", "expected a list, got " + describe(entry->value),
                       "- {source: wheels/x.whl, dest: /data/wheels/x.whl}");
        return;
    }
    const auto node_names = names_of(cluster.nodes);
    const auto role_names = names_of(cluster.roles);
    std::size_t index = 0;
    for (const auto& element : entry->value) {
        const std::string path = "files[" + std::to_string(index++) + "]";
        MapReader map(ctx.yaml, element, path, ctx.yaml.at(element, entry->value_where));
        if (!map.is_map()) continue;
        map.check_keys({"source", "dest", "mode", "roles", "nodes"});
        FileSpec file;
        file.where = map.where();
        if (map.require("source", "the file on this machine, relative to the cluster file") &&
            map.string("source", file.source)) {
            file.source_where = map.find("source")->value_where;
            if (file.source.empty()) ctx.yaml.error(file.source_where, path + ".source", "must not be empty");
            file.source = ctx.files->resolve(ctx.yaml.file, file.source);
        }
        if (map.require("dest", "the absolute path on the nodes") && map.string("dest", file.dest)) {
            const auto problem = dest_problem(file.dest);
            if (!problem.empty()) ctx.yaml.error(map.find("dest")->value_where, path + ".dest", problem);
        }
        std::string mode_text;
        if (map.string("mode", mode_text)) {
            if (const auto mode = parse_mode(mode_text)) {
                file.mode = *mode;
            } else {
                ctx.yaml.error(map.find("mode")->value_where, path + ".mode",
                               "invalid mode `" + mode_text + "`",
                               "octal permission bits such as 0644 or 0755");
            }
        }
        std::vector<Item> roles;
        std::vector<Item> nodes;
        map.items("roles", roles, true);
        map.items("nodes", nodes, true);
        check_names(ctx, roles, path + ".roles", role_names, "role");
        check_names(ctx, nodes, path + ".nodes", node_names, "node");
        // A role with several groups means all of them: FileSpec::roles holds group names.
        for (const auto& item : roles) {
            file.roles.push_back(item.value);
            for (const auto& role : cluster.roles)
                if (role.entry_name() == item.value && role.name != item.value)
                    file.roles.push_back(role.name);
        }
        for (const auto& item : nodes) file.nodes.push_back(item.value);

        // Two entries writing one path would race on any node that gets both.
        const auto first = std::find_if(cluster.files.begin(), cluster.files.end(),
                                        [&](const FileSpec& other) { return other.dest == file.dest; });
        if (!file.dest.empty() && first != cluster.files.end()) {
            ctx.yaml.error(map.find("dest")->value_where, path + ".dest",
                           "duplicate dest `" + file.dest + "`",
                           "first given at line " + std::to_string(first->where.line));
        }
        cluster.files.push_back(std::move(file));
    }
}

}  // namespace pdctl::config::detail
