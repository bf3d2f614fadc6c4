#include "pdctl/exec/ssh_key_file.hpp"

#include <fstream>
#include <sstream>

#include "pdctl/exec/known_hosts.hpp"

namespace pdctl::exec {
namespace {

constexpr std::string_view kOpensshBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
constexpr std::string_view kOpensshEnd = "-----END OPENSSH PRIVATE KEY-----";
constexpr std::string_view kOpensshMagic{"openssh-key-v1\0", 15};

// Reads SSH wire-format strings (uint32 length + bytes) from a buffer.
class WireReader {
  public:
    explicit WireReader(std::string_view data) : data_(data) {}
    bool string(std::string_view& out) {
        if (data_.size() < 4) return false;
        const auto* p = reinterpret_cast<const unsigned char*>(data_.data());
        const std::size_t length =
            (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
        if (data_.size() - 4 < length) return false;
        out = data_.substr(4, length);
        data_.remove_prefix(4 + length);
        return true;
    }
    bool u32(std::uint32_t& out) {
        if (data_.size() < 4) return false;
        const auto* p = reinterpret_cast<const unsigned char*>(data_.data());
        out = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
        data_.remove_prefix(4);
        return true;
    }
    bool skip_prefix(std::string_view prefix) {
        if (data_.substr(0, prefix.size()) != prefix) return false;
        data_.remove_prefix(prefix.size());
        return true;
    }

  private:
    std::string_view data_;
};

KeyKind kind_of(std::string_view type_name) {
    if (type_name == "ssh-ed25519") return KeyKind::Ed25519;
    if (type_name.substr(0, 11) == "ecdsa-sha2-") return KeyKind::Ecdsa;
    if (type_name == "ssh-rsa") return KeyKind::Rsa;
    if (type_name == "ssh-dss") return KeyKind::Dsa;
    return KeyKind::Other;
}

KeyFileInfo inspect_openssh(const std::string& text) {
    KeyFileInfo info;
    const auto begin = text.find(kOpensshBegin);
    const auto end = text.find(kOpensshEnd);
    if (end == std::string::npos || end < begin) {
        info.error = "truncated OpenSSH private key";
        return info;
    }
    const auto body = base64_decode(
        std::string_view(text).substr(begin + kOpensshBegin.size(), end - begin - kOpensshBegin.size()));
    if (!body) {
        info.error = "corrupt OpenSSH private key (bad base64)";
        return info;
    }
    WireReader reader(*body);
    std::string_view cipher, kdf, kdf_options, public_blob, type_name;
    std::uint32_t keys = 0;
    if (!reader.skip_prefix(kOpensshMagic) || !reader.string(cipher) || !reader.string(kdf) ||
        !reader.string(kdf_options) || !reader.u32(keys) || keys < 1 || !reader.string(public_blob) ||
        !WireReader(public_blob).string(type_name)) {
        info.error = "corrupt OpenSSH private key";
        return info;
    }
    info.type_name = std::string(type_name);
    info.kind = kind_of(type_name);
    info.encrypted = cipher != "none";
    return info;
}

}  // namespace

KeyFileInfo inspect_key_text(const std::string& text) {
    KeyFileInfo info;
    if (text.find(kOpensshBegin) != std::string::npos) return inspect_openssh(text);
    struct Pem {
        std::string_view header;
        KeyKind kind;
        const char* type_name;
    };
    static constexpr Pem kPem[] = {
        {"-----BEGIN RSA PRIVATE KEY-----", KeyKind::Rsa, "ssh-rsa"},
        {"-----BEGIN EC PRIVATE KEY-----", KeyKind::Ecdsa, "ecdsa"},
        {"-----BEGIN DSA PRIVATE KEY-----", KeyKind::Dsa, "ssh-dss"},
        {"-----BEGIN ENCRYPTED PRIVATE KEY-----", KeyKind::Other, "PKCS#8"},
        {"-----BEGIN PRIVATE KEY-----", KeyKind::Other, "PKCS#8"},
    };
    for (const auto& pem : kPem) {
        if (text.find(pem.header) == std::string::npos) continue;
        info.kind = pem.kind;
        info.type_name = pem.type_name;
        info.encrypted = text.find("Proc-Type: 4,ENCRYPTED") != std::string::npos ||
                         pem.header.find("ENCRYPTED") != std::string_view::npos;
        return info;
    }
    if (text.rfind("ssh-", 0) == 0 || text.rfind("ecdsa-", 0) == 0)
        info.error = "this is a public key; name the private key file (without .pub)";
    else
        info.error = "not a private key file";
    return info;
}

KeyFileInfo inspect_key_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        KeyFileInfo info;
        info.error = "cannot read the key file";
        return info;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    return inspect_key_text(buffer.str());
}

std::string rsa_key_explanation(const std::string& path) {
    return path +
           " is an RSA key: libssh2 1.10 (which pdctl uses) signs only with SHA-1 `ssh-rsa`, which "
           "OpenSSH 8.8 and later refuse by default. Use an ed25519 key instead: `ssh-keygen -t ed25519`, "
           "add the .pub to the nodes' authorized_keys and set ssh.identity (or load it into ssh-agent)";
}

}  // namespace pdctl::exec
