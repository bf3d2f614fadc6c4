#include "pdctl/config/detail/loading.hpp"

#include <algorithm>
#include <cctype>

namespace pdctl::config::detail {

bool is_valid_name(const std::string& name) {
    if (name.empty() || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
    for (const char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
    }
    return true;
}

void read_ssh(const MapReader& parent, SshSettings& out) {
    const auto* entry = parent.find("ssh");
    if (!entry) return;
    MapReader ssh(parent.context(), entry->value, parent.child_path("ssh"), entry->value_where);
    ssh.check_keys({"user", "port", "identity", "transport"});
    if (ssh.string("user", out.user)) out.user_given = true;
    if (ssh.port("port", out.port)) out.port_given = true;
    // `~` is kept: it names the operator's home on the machine that runs pdctl.
    ssh.string("identity", out.identity);
    ssh.choice("transport", out.transport,
               {{"auto", SshTransport::Auto},
                {"libssh2", SshTransport::Libssh2},
                {"openssh", SshTransport::OpenSsh}});
    if (out.user.empty())
        parent.context().error(entry->value_where, ssh.child_path("user"), "must not be empty");
}

void read_cache_dir(const MapReader& parent, std::string& out) {
    std::string value;
    if (!parent.string("cache", value)) return;
    if (value == "off") {
        out.clear();  // a role that turns off the defaults' cache
        return;
    }
    if (value.empty() || value.front() != '/' || value == "/" ||
        value.find_first_of(" \t\n") != std::string::npos) {
        parent.context().error(parent.find("cache")->value_where, parent.child_path("cache"),
                               "must be an absolute directory without blanks, or `off`",
                               "e.g. /var/cache/pdctl: each node keeps its compiled kernels there");
        return;
    }
    out = value;
}

void read_container(const MapReader& parent, ContainerSettings& out) {
    const auto* entry = parent.find("container");
    if (!entry) return;
    MapReader container(parent.context(), entry->value, parent.child_path("container"), entry->value_where);
    container.check_keys({"cli", "image", "options"});
    if (container.string("cli", out.cli) && out.cli.empty()) {
        parent.context().error(container.find("cli")->value_where, container.child_path("cli"),
                               "must not be empty", "docker, podman, or a path to either");
    }
    container.string("image", out.image);
    container.strings("options", out.options);
}

std::optional<EnvFile> load_env_file(const LoadContext& ctx, const Item& item, const std::string& key_path,
                                     const std::vector<EnvVar>& base) {
    const std::string resolved = ctx.files->resolve(ctx.yaml.file, item.value);
    const auto content = ctx.files->read(resolved);
    if (!content) {
        ctx.yaml.error(
            item.where, key_path, "cannot read file `" + resolved + "`",
            resolved == item.value ? std::string{} : "relative paths start at the cluster file's directory");
        return std::nullopt;
    }
    // Parsed into a diagnostics list of its own so every error can be placed under the YAML key
    // that named the file, which is what tells a shared file's errors apart between roles.
    Diagnostics local;
    EnvFile file = parse_env_file(resolved, *content, base, ctx.secret_keys, local);
    for (const auto& name : file.referenced)
        if (std::find(ctx.env_references.begin(), ctx.env_references.end(), name) == ctx.env_references.end())
            ctx.env_references.push_back(name);
    const std::string prefix = key_path + "[" + item.value + "]";
    for (const auto& diagnostic : local.items()) {
        ctx.yaml.error(diagnostic.where,
                       diagnostic.key_path.empty() ? prefix : prefix + "." + diagnostic.key_path,
                       diagnostic.message, diagnostic.hint);
    }
    return file;
}

}  // namespace pdctl::config::detail
