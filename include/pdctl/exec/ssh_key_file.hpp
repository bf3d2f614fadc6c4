#pragma once
// What kind of private key a file holds, read without the passphrase: OpenSSH keeps the public part
// of "BEGIN OPENSSH PRIVATE KEY" files unencrypted; PEM files say it in their header.

#include <string>

namespace pdctl::exec {

enum class KeyKind { Ed25519, Ecdsa, Rsa, Dsa, Other };

struct KeyFileInfo {
    std::string error;  // non-empty: unreadable or not a private key
    KeyKind kind = KeyKind::Other;
    std::string type_name;  // "ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa", ... or "PKCS#8"
    bool encrypted = false;
};

KeyFileInfo inspect_key_text(const std::string& text);
KeyFileInfo inspect_key_file(const std::string& path);

// The explanation given whenever an RSA key is involved in a failed login.
std::string rsa_key_explanation(const std::string& path);

}  // namespace pdctl::exec
