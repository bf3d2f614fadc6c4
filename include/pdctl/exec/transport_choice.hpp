#pragma once
// Which SSH transport a node gets (`ssh.transport`, docs/ssh.md "How auto decides"). Pure: the facts
// are gathered by the SSH transports executor (pdctl's reading of the ssh config files, else `ssh -G`;
// the key files, known_hosts); this only decides and says why, in words the plan, doctor and -v print.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/openssh_view.hpp"
#include "pdctl/exec/ssh_key_file.hpp"
#include "pdctl/exec/ssh_target.hpp"

namespace pdctl::exec {

enum class Transport { Libssh2, OpenSsh };
std::string to_string(Transport transport);

struct TransportChoice {
    Transport transport = Transport::Libssh2;
    std::string reason;  // "ProxyJump root@[10.77.0.250] (libssh2 has no jump hosts yet)", ...
    bool automatic = false;
};

// One node's transport, as `plan` and `doctor` show it.
struct NodeTransport {
    std::string node;
    TransportChoice choice;
};

struct PresentKey {
    std::string path;
    KeyKind kind = KeyKind::Other;
};

struct TransportFacts {
    config::SshTransport setting = config::SshTransport::Auto;
    std::string ssh_client;                 // the `ssh` found on PATH; empty: none installed
    std::string ssh_g_error;                // `ssh -G` failed: why
    OpenSshView openssh;                    // what `ssh -G` says applies (or would: see below)
    bool read_in_process = false;           // `openssh` is pdctl's reading of the files, no `ssh -G` ran
    SshTarget libssh2;                      // pdctl's own reading of the same config for its libssh2 client
    std::vector<PresentKey> identities;     // the identity files of `ssh -G` that exist, in order
    std::vector<std::string> certificates;  // certificates that exist: CertificateFile, or <key>-cert.pub
    bool host_ca_only = false;              // known_hosts trusts the host only through @cert-authority
    bool match_exec = false;                // the ssh config has a `Match exec` block
    bool kerberos_ticket = false;           // a Kerberos credential cache exists (GSSAPI would be used)
};

TransportChoice choose_transport(const TransportFacts& facts);

}  // namespace pdctl::exec
