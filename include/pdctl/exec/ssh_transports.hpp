#pragma once
// The executor for `executor: ssh`: every node on the transport `ssh.transport` gives it (libssh2,
// OpenSSH, or `auto`: choose_transport() over what OpenSSH would do for the node). One cluster may mix
// both; each transport is created on first use, so a cluster all on one never starts the other.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pdctl/exec/executor.hpp"
#include "pdctl/exec/openssh_config_reading.hpp"
#include "pdctl/exec/openssh_executor.hpp"
#include "pdctl/exec/ssh_executor.hpp"
#include "pdctl/exec/transport_choice.hpp"

namespace pdctl::exec {

// What choose_transport() needs for one node: what OpenSSH would do for it, from `reading` when that
// gives a view (no process), else from `ssh -G` (local, no network: it only evaluates the ssh config);
// then the key files and known_hosts it names. Only for `ssh.transport: auto`. `reading` may be null:
// always `ssh -G`.
TransportFacts gather_transport_facts(const config::Node& node, const SshOptions& libssh2,
                                      const OpenSshOptions& openssh,
                                      const OpenSshConfigReading* reading = nullptr);

// OpenSSH options that check host keys against the same file and keep the same timeouts as `libssh2`,
// with masters that stay for the next run as the environment says: PDCTL_SSH_PERSIST (default 60 s,
// like Ansible's ControlPersist) in PDCTL_SSH_CONTROL_DIR (default default_control_dir()). Throws
// std::invalid_argument for a PDCTL_SSH_PERSIST it cannot read.
OpenSshOptions openssh_options_like(const SshOptions& libssh2);

class SshTransports : public Executor {
  public:
    SshTransports(SshOptions libssh2, OpenSshOptions openssh);
    ~SshTransports() override;

    CommandResult run(const config::Node& node, const Command& command) override;
    TransferResult upload(const config::Node& node, const std::string& local_path,
                          const std::string& remote_path, int mode,
                          std::chrono::milliseconds timeout) override;

    // Ends the OpenSSH masters of the nodes used so far, those that would stay included: `stop` at its
    // end. How many there were; 0 without OpenSSH nodes.
    std::size_t close_masters();

    // Decided once per node and kept; logged at -v the first time.
    TransportChoice choice_for(const config::Node& node);

  private:
    Executor& executor_for(const config::Node& node);
    const OpenSshConfigReading& config_reading();

    SshOptions libssh2_options_;
    OpenSshOptions openssh_options_;
    std::mutex mutex_;
    std::map<std::string, TransportChoice> choices_;  // by node name
    std::once_flag reading_once_;
    OpenSshConfigReading reading_;  // the ssh config files, read once for every `auto` node
    std::unique_ptr<SshExecutor> libssh2_;
    std::unique_ptr<OpenSshExecutor> openssh_;
};

}  // namespace pdctl::exec
