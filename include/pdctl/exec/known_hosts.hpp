#pragma once
// Helpers for OpenSSH known_hosts files and key fingerprints (the libssh2-facing check lives in
// src/exec/ssh_host_key.cpp).

#include <optional>
#include <string>
#include <string_view>

namespace pdctl::exec {

std::string base64_encode(std::string_view bytes);
// Standard alphabet; padding optional; whitespace ignored. nullopt on any other character.
std::optional<std::string> base64_decode(std::string_view text);

// "SHA256:<base64 without padding>" of a key blob, exactly like `ssh-keygen -l` / OpenSSH messages.
std::string sha256_fingerprint(std::string_view key_blob);

// The host field OpenSSH writes: `host` for port 22, else `[host]:port`.
std::string known_hosts_name(const std::string& host, int port);

// One known_hosts line (with trailing newline) for a key blob of type `key_type` (e.g. "ssh-ed25519").
std::string known_hosts_line(const std::string& host, int port, const std::string& key_type,
                             std::string_view key_blob);

// How a known_hosts text trusts one host (`host`, `port` as pdctl connects): by a recorded key (plain,
// pattern or hashed entry), by a certificate authority (`@cert-authority` line), or not at all.
// `@revoked` lines are not trust and are ignored here.
struct KnownHostsTrust {
    bool key = false;
    bool certificate_authority = false;
};
KnownHostsTrust known_hosts_trust(std::string_view text, const std::string& host, int port);

// Appends `line` to `path` (creating it 0600 and its directory 0700 if needed), starting a new line
// if the file does not end with one. Serialised within the process. Returns an error text or "".
std::string append_known_host(const std::string& path, const std::string& line);

}  // namespace pdctl::exec
