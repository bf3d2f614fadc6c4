#include "pdctl/push/push_plan.hpp"

#include <algorithm>
#include <sstream>

#include "embedded/push_scripts.hpp"

namespace pdctl::push {
namespace {

bool wants(const config::Cluster& cluster, const config::FileSpec& file, const std::string& node) {
    if (file.roles.empty() && file.nodes.empty()) return true;
    if (std::find(file.nodes.begin(), file.nodes.end(), node) != file.nodes.end()) return true;
    return std::any_of(file.roles.begin(), file.roles.end(), [&](const std::string& name) {
        const auto* role = cluster.find_role(name);
        return role && std::find(role->nodes.begin(), role->nodes.end(), node) != role->nodes.end();
    });
}

// The scripts are src/push/scripts/*.sh: everything that varies arrives as "$1", "$2", ... (argv[0] of
// `sh -c` is the label that shows in `ps`).

bool is_hex_sha256(const std::string& text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::optional<int> parse_octal(const std::string& text) {
    if (text.empty() || text.size() > 5) return std::nullopt;
    int value = 0;
    for (const char c : text) {
        if (c < '0' || c > '7') return std::nullopt;
        value = value * 8 + (c - '0');
    }
    return value;
}

std::string octal(int mode) {
    std::ostringstream out;
    out << std::oct << mode;
    return out.str();
}

}  // namespace

std::vector<NodeFiles> plan_push(const config::Cluster& cluster) {
    std::vector<NodeFiles> plan;
    for (const auto& node : cluster.nodes) {
        NodeFiles entry{node, {}};
        for (const auto& file : cluster.files) {
            if (wants(cluster, file, node.name)) entry.files.push_back(file);
        }
        if (!entry.files.empty()) plan.push_back(std::move(entry));
    }
    return plan;
}

exec::Command probe_command(const std::vector<std::string>& paths) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::probe), "pdctl-push-probe"};
    command.argv.insert(command.argv.end(), paths.begin(), paths.end());
    // Hashing a multi-GiB file already in place takes seconds.
    command.timeout = std::chrono::minutes(5);
    return command;
}

std::optional<std::vector<RemoteFile>> parse_probe(const std::string& output, std::size_t paths) {
    std::vector<RemoteFile> files;
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string kind;
        words >> kind;
        RemoteFile file;
        if (kind == "missing") {
            file.kind = RemoteFile::Kind::Missing;
        } else if (kind == "other") {
            file.kind = RemoteFile::Kind::Other;
        } else if (kind == "file") {
            std::string mode;
            std::string sha;
            words >> mode >> sha;
            const auto parsed = parse_octal(mode);
            if (!parsed) return std::nullopt;
            file.kind = RemoteFile::Kind::Regular;
            file.mode = *parsed;
            if (is_hex_sha256(sha)) file.sha256 = sha;
        } else {
            return std::nullopt;
        }
        files.push_back(std::move(file));
    }
    if (files.size() != paths) return std::nullopt;
    return files;
}

exec::Command make_directories_command(const std::vector<std::string>& dests) {
    exec::Command command;
    command.argv = {"mkdir", "-p", "--"};
    for (const auto& dest : dests) {
        const auto slash = dest.rfind('/');
        if (slash == std::string::npos || slash == 0) continue;  // in / itself
        const std::string directory = dest.substr(0, slash);
        if (std::find(command.argv.begin() + 3, command.argv.end(), directory) == command.argv.end())
            command.argv.push_back(directory);
    }
    if (command.argv.size() == 3) command.argv = {"true"};
    return command;
}

exec::Command verify_and_rename_command(const std::string& temp, const std::string& sha256,
                                        const std::string& dest) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::verify), "pdctl-push-verify", temp, sha256, dest};
    command.timeout = std::chrono::minutes(5);
    return command;
}

exec::Command chmod_command(const std::string& dest, int mode) {
    exec::Command command;
    command.argv = {"chmod", octal(mode & 07777), "--", dest};
    return command;
}

exec::Command remove_temporary_command(const std::string& temp) {
    exec::Command command;
    command.argv = {"rm", "-f", "--", temp};
    return command;
}

std::string temporary_name(const std::string& dest, const std::string& suffix) {
    return dest + ".pdctl-tmp-" + suffix;
}

}  // namespace pdctl::push
