// pdctl_fanout: the bench driver's stand-in for "pdctl runs one command on every node". pdctl has no
// verb that runs an arbitrary command, so this links pdctl_core and drives exec::SshExecutor (or, with
// --transport openssh, exec::OpenSshExecutor) exactly as the engine does (options as pdctl builds
// them, one thread per node like engine::observe, one reused connection per node), so its wall time is
// pdctl's transport cost and nothing else.
//
//   pdctl_fanout --key KEY --known-hosts FILE [--user root] [--port 22] [--repeat R]
//                [--transport libssh2|openssh] ADDR... -- CMD...
//
// Runs CMD R times in a row on each address (R > 1: the "many small steps" scenario), all addresses in
// parallel. Exit 0 when every run exited 0; otherwise prints the first failure per node and exits 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "pdctl/exec/openssh_executor.hpp"
#include "pdctl/exec/ssh_executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"

namespace {

int usage() {
    std::fprintf(stderr,
                 "usage: pdctl_fanout --key KEY --known-hosts FILE [--user U] [--port P] [--repeat R] "
                 "[--transport libssh2|openssh] ADDR... -- CMD...\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string key, known_hosts, user = "root", transport = "libssh2";
    int port = 22, repeat = 1;
    std::vector<std::string> addresses, command;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--") {
            command.assign(argv + i + 1, argv + argc);
            break;
        } else if (arg == "--key" && has_value) {
            key = argv[++i];
        } else if (arg == "--known-hosts" && has_value) {
            known_hosts = argv[++i];
        } else if (arg == "--user" && has_value) {
            user = argv[++i];
        } else if (arg == "--port" && has_value) {
            port = std::atoi(argv[++i]);
        } else if (arg == "--transport" && has_value) {
            transport = argv[++i];
        } else if (arg == "--repeat" && has_value) {
            repeat = std::atoi(argv[++i]);
        } else if (!arg.empty() && arg[0] != '-') {
            addresses.push_back(arg);
        } else {
            return usage();
        }
    }
    if (key.empty() || known_hosts.empty() || addresses.empty() || command.empty() || repeat < 1 ||
        (transport != "libssh2" && transport != "openssh"))
        return usage();

    // What pdctl uses, minus the operator's ssh config and agent: the bench gives every tool the same
    // single key and known_hosts. PDCTL_SSH_MAX_HANDSHAKES is honoured as in pdctl.
    auto options = pdctl::exec::SshOptions::from_environment();
    options.known_hosts = known_hosts;
    options.ssh_config.clear();
    options.agent_socket.clear();
    options.default_identities.clear();
    // OpenSSH as pdctl drives it, reading no ssh config (-F /dev/null) so that both transports get the
    // same single key and known_hosts.
    auto openssh = pdctl::exec::openssh_options_like(options);
    openssh.ssh_config = "/dev/null";
    // Each invocation its own connections, as each baseline's: the masters pdctl keeps between runs
    // are measured by the real binary's -warm rows.
    openssh.persist = std::chrono::seconds(0);
    std::unique_ptr<pdctl::exec::Executor> chosen;
    if (transport == "openssh") {
        chosen = std::make_unique<pdctl::exec::OpenSshExecutor>(openssh);
    } else {
        chosen = std::make_unique<pdctl::exec::SshExecutor>(options);
    }
    auto& executor = *chosen;

    std::vector<std::string> failures(addresses.size());
    std::vector<std::thread> threads;
    threads.reserve(addresses.size());
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        threads.emplace_back([&, i] {
            pdctl::config::Node node;
            node.name = "n" + std::to_string(i + 1);
            node.address = addresses[i];
            node.ssh.user = user;
            node.ssh.port = port;
            node.ssh.identity = key;
            const pdctl::exec::Command cmd{command, {}, std::chrono::seconds(60)};
            for (int r = 0; r < repeat; ++r) {
                const auto result = executor.run(node, cmd);
                if (!result.ok()) {
                    failures[i] = result.transport_error.empty()
                                      ? "exit " + std::to_string(result.exit_code) + ": " + result.err
                                      : result.transport_error;
                    return;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    int failed = 0;
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        if (failures[i].empty()) continue;
        ++failed;
        std::fprintf(stderr, "%s: %s\n", addresses[i].c_str(), failures[i].c_str());
    }
    return failed == 0 ? 0 : 1;
}
