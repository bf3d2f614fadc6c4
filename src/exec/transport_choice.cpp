#include "pdctl/exec/transport_choice.hpp"

#include <algorithm>

namespace pdctl::exec {
namespace {

TransportChoice openssh(std::string reason) {
    return {Transport::OpenSsh, std::move(reason), true};
}

// Why OpenSSH must carry this node, or "" when libssh2 can do all that `ssh -G` asks for. The
// first reason found is given: one is enough to decide, and the plan line stays short.
std::string needs_openssh(const TransportFacts& facts) {
    const auto& view = facts.openssh;
    if (!view.proxy_command.empty()) return "ProxyCommand " + view.proxy_command;
    if (!view.proxy_jump.empty()) return "ProxyJump " + view.proxy_jump + " (no jump hosts in libssh2 yet)";
    if (!facts.certificates.empty())
        return "certificate " + facts.certificates.front() + " (libssh2 has none)";
    if (facts.host_ca_only)
        return "known_hosts trusts this host through @cert-authority only (libssh2 has no certificates)";
    const bool all_rsa = !facts.identities.empty() &&
                         std::all_of(facts.identities.begin(), facts.identities.end(),
                                     [](const PresentKey& key) { return key.kind == KeyKind::Rsa; });
    if (all_rsa)
        return "RSA key " + facts.identities.front().path +
               " only (libssh2 1.10 signs RSA with SHA-1, which OpenSSH 8.8+ servers refuse)";
    if (facts.match_exec) return "the ssh config has a `Match exec` block (only OpenSSH can evaluate it)";
    if (view.gssapi && facts.kerberos_ticket) return "GSSAPIAuthentication with a Kerberos ticket";
    // pdctl reads the ssh config itself for libssh2; where OpenSSH's evaluation (a Match block, a
    // system-wide setting) gives another destination, OpenSSH's is the one the operator tested.
    const auto& own = facts.libssh2;
    const std::string source = facts.read_in_process ? "the ssh config, read as OpenSSH does," : "ssh -G";
    if (!view.hostname.empty() && view.hostname != own.host)
        return source + " gives HostName " + view.hostname + " where pdctl's own reading gives " + own.host;
    if (!view.user.empty() && view.user != own.user)
        return source + " gives User " + view.user + " where pdctl's own reading gives " + own.user;
    if (view.port != own.port)
        return source + " gives Port " + std::to_string(view.port) + " where pdctl's own reading gives " +
               std::to_string(own.port);
    return "";
}

}  // namespace

std::string to_string(Transport transport) {
    return transport == Transport::OpenSsh ? "openssh" : "libssh2";
}

TransportChoice choose_transport(const TransportFacts& facts) {
    switch (facts.setting) {
        case config::SshTransport::Libssh2:
            return {Transport::Libssh2, "ssh.transport: libssh2", false};
        case config::SshTransport::OpenSsh:
            return {Transport::OpenSsh, "ssh.transport: openssh", false};
        case config::SshTransport::Auto:
            break;
    }
    if (facts.ssh_client.empty()) return {Transport::Libssh2, "no ssh client installed", true};
    if (!facts.ssh_g_error.empty()) return {Transport::Libssh2, "ssh -G failed: " + facts.ssh_g_error, true};
    if (auto reason = needs_openssh(facts); !reason.empty()) return openssh(std::move(reason));
    if (!facts.libssh2.unsupported.empty()) return openssh(facts.libssh2.unsupported);
    return {
        Transport::Libssh2,
        facts.read_in_process ? "nothing in the ssh config needs OpenSSH" : "nothing in ssh -G needs OpenSSH",
        true};
}

}  // namespace pdctl::exec
