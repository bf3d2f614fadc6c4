#pragma once
// Runs commands on nodes with the system's OpenSSH client, so that whatever the operator's `ssh` can
// do (jump hosts, certificates, RSA keys, Match blocks, GSSAPI) works for pdctl too. One ControlMaster
// connection per node for the whole pdctl invocation, in a private directory removed at the end; every
// command is a session pdctl opens on the master's socket itself (OpenSSH's mux protocol,
// openssh_mux.hpp): a channel on the open connection, no process per command. Host keys are
// verified as on the libssh2 path: StrictHostKeyChecking=yes always (accept-new with
// --accept-new-host-keys), never "no". Behaviour and limits: docs/ssh.md.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::exec {

struct OpenSshOptions {
    std::string ssh_program = "ssh";  // looked up in PATH
    std::string ssh_config;   // `-F FILE`; empty: OpenSSH's own files (~/.ssh/config, /etc/ssh/ssh_config)
    std::string known_hosts;  // UserKnownHostsFile: the file the libssh2 path checks too
    bool accept_new_host_keys = false;
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};  // TCP, handshake and login
    std::chrono::seconds keepalive_interval{30};
    int max_parallel_handshakes = 16;
    int sessions_per_node = 8;  // concurrent commands on one master (sshd's MaxSessions is 10 by default)
    std::string home;           // for `~/` in pdctl.yaml's identity; empty = $HOME
};

// `-l USER -p PORT -i KEY` where pdctl.yaml sets them (the same precedence as the libssh2 path: a value
// equal to pdctl's built-in default leaves the ssh config's), then the node's address.
std::vector<std::string> openssh_destination_args(const config::Node& node, const std::string& home);

class OpenSshExecutor : public Executor {
  public:
    explicit OpenSshExecutor(OpenSshOptions options);
    ~OpenSshExecutor() override;  // ends every master connection, removes the control directory
    OpenSshExecutor(const OpenSshExecutor&) = delete;
    OpenSshExecutor& operator=(const OpenSshExecutor&) = delete;

    // Thread-safe; never throws: transport failures are in CommandResult::transport_error.
    CommandResult run(const config::Node& node, const Command& command) override;
    // `cat` over the node's master into the remote path, its size checked on the node before the mode
    // is set; a short or failed copy is removed.
    TransferResult upload(const config::Node& node, const std::string& local_path,
                          const std::string& remote_path, int mode,
                          std::chrono::milliseconds timeout) override;

    std::size_t connections_opened() const;  // master connections started so far
    std::string control_dir() const;         // the private directory of the sockets; "" before the first

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pdctl::exec
