#pragma once
// Where and as whom pdctl connects for a node: pdctl.yaml's ssh settings combined with the ssh config.
//
// Precedence, per value: a value set in pdctl.yaml that differs from pdctl's built-in default wins;
// else the ssh config's value for the node's address; else the built-in default (user root, port 22,
// keys: agent + ~/.ssh/id_ed25519, ~/.ssh/id_ecdsa). `HostName` only comes from the ssh config.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/ssh_config.hpp"

namespace pdctl::exec {

struct SshTarget {
    std::string node;   // node name, for messages
    std::string alias;  // the node's address as written in pdctl.yaml
    std::string host;   // what is resolved and connected to (HostName, else the alias)
    int port = 22;
    std::string user = "root";
    std::vector<std::string> identities;  // explicit keys (pdctl.yaml, else IdentityFile), expanded
    std::string unsupported;              // non-empty: why this node cannot be reached (ProxyJump ...)

    std::string address() const;   // host:port ([v6]:port)
    std::string describe() const;  // "gpu3 (10.0.0.3:22)" or "gpu3 (gpu3-alias → 10.0.0.3:22)"
};

// `home` expands `~/` and %d; `local_user` expands %u.
SshTarget resolve_target(const config::Node& node, const SshConfig& ssh_config, const std::string& home,
                         const std::string& local_user);

// What makes two nodes one connection, on either transport: the same name, address, user, port and
// key (a node listed twice with other settings gets a connection of its own).
std::string connection_key(const config::Node& node);

// $HOME, else the password database's home of this process's user, else "/".
std::string local_home_directory();
// This process's user name (for %u), else $USER, else "root".
std::string local_user_name();

// `~/x` → home/x; other paths unchanged.
std::string expand_home(const std::string& path, const std::string& home);

}  // namespace pdctl::exec
