#include "openssh_command_line.hpp"

#include <algorithm>
#include <chrono>

#include "pdctl/exec/ssh_target.hpp"

namespace pdctl::exec {

std::vector<std::string> openssh_destination_args(const config::Node& node, const std::string& home) {
    std::vector<std::string> args;
    // Only what pdctl.yaml says: the rest is the ssh config's, as the operator's own `ssh` would see it.
    if (node.ssh.user_set()) args.insert(args.end(), {"-l", node.ssh.user});
    if (node.ssh.port_set()) args.insert(args.end(), {"-p", std::to_string(node.ssh.port)});
    if (!node.ssh.identity.empty()) args.insert(args.end(), {"-i", expand_home(node.ssh.identity, home)});
    args.insert(args.end(), {"--", node.address});
    return args;
}

namespace detail {

std::vector<std::string> openssh_session_options(const OpenSshOptions& options, const std::string& socket,
                                                 bool persistent) {
    const auto seconds = [](auto duration) {
        return std::to_string(
            std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(duration).count()));
    };
    std::vector<std::string> args;
    for (const auto& option : {
             std::string("BatchMode=yes"),  // never a prompt: a password or passphrase question fails
             std::string("StrictHostKeyChecking=") + (options.accept_new_host_keys ? "accept-new" : "yes"),
             "UserKnownHostsFile=" + options.known_hosts,
             std::string("UpdateHostKeys=no"),  // the libssh2 path never rewrites known_hosts either
             std::string("LogLevel=ERROR"),
             "ConnectTimeout=" + seconds(options.connect_timeout),
             "ServerAliveInterval=" + std::to_string(options.keepalive_interval.count()),
             std::string("ServerAliveCountMax=3"),
             "ControlPath=" + socket,
             "ControlPersist=" + (persistent ? std::to_string(options.persist.count()) : "no"),
         })
        args.insert(args.end(), {"-o", option});
    return args;
}

}  // namespace detail
}  // namespace pdctl::exec
