#pragma once
// Runs commands on nodes with the system's OpenSSH client, so that whatever the operator's `ssh` can
// do (jump hosts, certificates, RSA keys, Match blocks, GSSAPI) works for pdctl too. One ControlMaster
// connection per node: either one that stays for the next run (ControlPersist, in the per-user
// directory of openssh_masters.hpp, as Ansible keeps them), or one for this invocation only, in a
// private directory removed at the end. Every command is a session pdctl opens on the master's socket itself
// (OpenSSH's mux protocol, openssh_mux.hpp): a channel on the open connection, no process per command. Host
// keys are verified as on the libssh2 path: StrictHostKeyChecking=yes always (accept-new with
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
    // How long a master stays after its last session (ControlPersist), for the next run to use. 0: the
    // masters are this executor's and end with it. The binary's default is 60 s
    // (openssh_options_like: PDCTL_SSH_PERSIST); code that builds its own options says so.
    std::chrono::seconds persist{0};
    std::string control_dir;  // where masters that stay live; empty: default_control_dir()
};

// `-l USER -p PORT -i KEY` where pdctl.yaml sets them (the same precedence as the libssh2 path: a value
// equal to pdctl's built-in default leaves the ssh config's), then the node's address.
std::vector<std::string> openssh_destination_args(const config::Node& node, const std::string& home);

class OpenSshExecutor : public Executor {
  public:
    explicit OpenSshExecutor(OpenSshOptions options);
    // Ends this run's own masters and removes their directory; masters that stay are left running.
    ~OpenSshExecutor() override;
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
    std::size_t connections_reused() const;  // masters an earlier run left, used by this one
    // Ends the masters this executor used, including those that would stay (`stop` at its end); how
    // many agreed.
    std::size_t close_masters();
    std::string control_dir() const;  // the private directory of the sockets; "" before the first

  private:
    // A script whose stdin is the open file `stdin_fd` (upload's data); like run() otherwise.
    CommandResult run_script_with_stdin_file(const config::Node& node, const std::string& script,
                                             int stdin_fd, std::chrono::milliseconds timeout);

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pdctl::exec
