#pragma once
// Runs commands on nodes over SSH with libssh2: one connection per node for the whole pdctl invocation,
// reused by every command. Host keys are verified against known_hosts by default; keys are ed25519 or
// ECDSA files in OpenSSH format, or whatever ssh-agent holds. Behaviour and limits: docs/ssh.md.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::exec {

struct SshOptions {
    // TCP connect + SSH handshake + host-key check + authentication, per node.
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
    std::string known_hosts;            // known_hosts file to verify (and with accept-new, extend)
    bool accept_new_host_keys = false;  // unknown host: trust and record its key (OpenSSH accept-new)
    std::string ssh_config;             // OpenSSH client config to honour; empty = none
    std::string agent_socket;           // ssh-agent socket; empty = no agent
    // Keys tried when neither pdctl.yaml nor the ssh config names one (missing files are skipped).
    std::vector<std::string> default_identities;
    std::string passphrase;                       // for encrypted private keys; never logged
    int max_parallel_handshakes = 16;             // key exchange is CPU-bound: bound the concurrent connects
    std::chrono::seconds keepalive_interval{30};  // 0 = off
    std::string home;                             // for `~/` in identity paths; empty = $HOME

    // The operator's defaults: ~/.ssh/known_hosts (or $PDCTL_KNOWN_HOSTS), ~/.ssh/config,
    // $SSH_AUTH_SOCK, ~/.ssh/id_ed25519 and ~/.ssh/id_ecdsa, $PDCTL_SSH_PASSPHRASE,
    // $PDCTL_SSH_MAX_HANDSHAKES.
    static SshOptions from_environment();
};

class SshExecutor : public Executor {
  public:
    explicit SshExecutor(SshOptions options = SshOptions::from_environment());
    ~SshExecutor() override;  // disconnects every session
    SshExecutor(const SshExecutor&) = delete;
    SshExecutor& operator=(const SshExecutor&) = delete;

    // Thread-safe. Commands for one node are serialised on that node's connection; different nodes
    // run in parallel. Never throws: transport failures are in CommandResult::transport_error.
    CommandResult run(const config::Node& node, const Command& command) override;

    // Over SFTP on the node's connection (see Executor::upload).
    TransferResult upload(const config::Node& node, const std::string& local_path,
                          const std::string& remote_path, int mode,
                          std::chrono::milliseconds timeout) override;

    // TCP connections opened so far (one per node unless a connection broke).
    std::size_t connections_opened() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pdctl::exec
