#include "pdctl/exec/ssh_target.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "pdctl/util/strings.hpp"

namespace pdctl::exec {
namespace {

struct Tokens {
    std::string alias, host, home, local_user, remote_user;
    int port = 22;
};

// OpenSSH's %-tokens that make sense for HostName and IdentityFile; unknown ones stay as written.
std::string expand_tokens(const std::string& text, const Tokens& tokens) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%' || i + 1 == text.size()) {
            out += text[i];
            continue;
        }
        switch (text[++i]) {
            case '%':
                out += '%';
                break;
            case 'h':
                out += tokens.host;
                break;
            case 'n':
                out += tokens.alias;
                break;
            case 'd':
                out += tokens.home;
                break;
            case 'u':
                out += tokens.local_user;
                break;
            case 'r':
                out += tokens.remote_user;
                break;
            case 'p':
                out += std::to_string(tokens.port);
                break;
            default:
                out += '%';
                out += text[i];
        }
    }
    return out;
}

bool is_none(const std::string& value) {
    return util::lower(value) == "none";
}

}  // namespace

std::string connection_key(const config::Node& node) {
    return node.name + '\n' + node.address + '\n' + node.ssh.user + '\n' + std::to_string(node.ssh.port) +
           '\n' + node.ssh.identity;
}

std::string local_home_directory() {
    if (const char* home = std::getenv("HOME"); home && *home) return home;
    if (const passwd* entry = ::getpwuid(::geteuid())) return entry->pw_dir;
    return "/";
}

std::string local_user_name() {
    if (const passwd* entry = ::getpwuid(::geteuid())) return entry->pw_name;
    const char* user = std::getenv("USER");
    return user && *user ? user : "root";
}

std::string expand_home(const std::string& path, const std::string& home) {
    if (path == "~") return home;
    if (path.rfind("~/", 0) == 0) return home + path.substr(1);
    return path;
}

std::string SshTarget::address() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string SshTarget::describe() const {
    if (alias.empty() || alias == host) return node + " (" + address() + ")";
    return node + " (" + alias + " \u2192 " + address() + ")";
}

SshTarget resolve_target(const config::Node& node, const SshConfig& ssh_config, const std::string& home,
                         const std::string& local_user) {
    const config::SshSettings builtin;
    const SshHostConfig from_config = ssh_config.lookup(node.address);

    SshTarget target;
    target.node = node.name;
    target.alias = node.address;
    target.user = node.ssh.user_set() ? node.ssh.user : from_config.user.value_or(builtin.user);
    target.port = node.ssh.port_set() ? node.ssh.port : from_config.port.value_or(builtin.port);

    Tokens tokens{node.address, node.address, home, local_user, target.user, target.port};
    target.host = from_config.hostname ? expand_tokens(*from_config.hostname, tokens) : node.address;
    tokens.host = target.host;

    if (!node.ssh.identity.empty()) {
        target.identities.push_back(expand_home(node.ssh.identity, home));
    } else {
        for (const auto& file : from_config.identity_files) {
            if (is_none(file)) continue;
            target.identities.push_back(expand_home(expand_tokens(file, tokens), home));
        }
    }

    if (from_config.proxy_jump && !is_none(*from_config.proxy_jump)) {
        target.unsupported =
            "the ssh config sets `ProxyJump " + *from_config.proxy_jump + "` for " + node.address +
            ": the libssh2 transport does not support jump hosts yet; use `ssh.transport: auto` (the "
            "default) or `openssh`, which reach it through OpenSSH";
    } else if (from_config.proxy_command && !is_none(*from_config.proxy_command)) {
        target.unsupported =
            "the ssh config sets `ProxyCommand` for " + node.address +
            ": the libssh2 transport does not support proxy commands yet; use `ssh.transport: "
            "auto` (the default) or `openssh`";
    }
    return target;
}

}  // namespace pdctl::exec
