// Host-key verification against an OpenSSH known_hosts file (hashed and [host]:port entries), with
// libssh2's known-host matcher. The file is read line by line so that one line libssh2 cannot parse
// (certificate authorities, security-key types) does not hide the lines after it.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "pdctl/exec/known_hosts.hpp"
#include "pdctl/util/strings.hpp"
#include "ssh_session.hpp"

namespace pdctl::exec::detail {
namespace {

struct KeyType {
    int hostkey_type;     // LIBSSH2_HOSTKEY_TYPE_*
    int knownhost_mask;   // LIBSSH2_KNOWNHOST_KEY_*
    const char* name;     // key type as in known_hosts
    const char* methods;  // host-key algorithms that produce this key type
};

// In preference order: ed25519 first (libssh2 would otherwise pick ECDSA).
constexpr KeyType kKeyTypes[] = {
    {LIBSSH2_HOSTKEY_TYPE_ED25519, LIBSSH2_KNOWNHOST_KEY_ED25519, "ssh-ed25519", "ssh-ed25519"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_256, LIBSSH2_KNOWNHOST_KEY_ECDSA_256, "ecdsa-sha2-nistp256",
     "ecdsa-sha2-nistp256"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_384, LIBSSH2_KNOWNHOST_KEY_ECDSA_384, "ecdsa-sha2-nistp384",
     "ecdsa-sha2-nistp384"},
    {LIBSSH2_HOSTKEY_TYPE_ECDSA_521, LIBSSH2_KNOWNHOST_KEY_ECDSA_521, "ecdsa-sha2-nistp521",
     "ecdsa-sha2-nistp521"},
    {LIBSSH2_HOSTKEY_TYPE_RSA, LIBSSH2_KNOWNHOST_KEY_SSHRSA, "ssh-rsa", "rsa-sha2-512,rsa-sha2-256,ssh-rsa"},
    {LIBSSH2_HOSTKEY_TYPE_DSS, LIBSSH2_KNOWNHOST_KEY_SSHDSS, "ssh-dss", "ssh-dss"},
};

const KeyType* key_type_of(int hostkey_type) {
    for (const auto& type : kKeyTypes)
        if (type.hostkey_type == hostkey_type) return &type;
    return nullptr;
}

LoadedKnownHosts load(LIBSSH2_SESSION* session, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();  // a missing file reads as empty: every host is unknown
    return parse_known_hosts(session, text.str(), path);
}

}  // namespace

LoadedKnownHosts parse_known_hosts(LIBSSH2_SESSION* session, std::string_view text,
                                   const std::string& source) {
    LoadedKnownHosts loaded{KnownHostsPtr(libssh2_knownhost_init(session)), {}};
    if (!loaded.hosts) throw SshError("cannot allocate the known-hosts table");
    int number = 0;
    std::size_t start = 0;
    // Line by line like std::getline: a last line without '\n' counts, an empty tail does not.
    while (start < text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        const std::string line(text.substr(start, end - start));
        start = end + 1;
        ++number;
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        if (line.compare(first, 8, "@revoked") == 0) {
            // @revoked <hosts> <type> <base64> [comment]
            std::vector<std::string> fields;
            std::size_t pos = first;
            while (pos < line.size() && fields.size() < 4) {
                const auto field = line.find_first_not_of(" \t", pos);
                if (field == std::string::npos) break;
                pos = line.find_first_of(" \t", field);
                fields.push_back(
                    line.substr(field, pos == std::string::npos ? std::string::npos : pos - field));
            }
            if (fields.size() == 4) loaded.revoked.insert(fields[3]);
            continue;
        }
        if (line[first] == '@') continue;  // @cert-authority: certificates are not supported
        if (libssh2_knownhost_readline(loaded.hosts.get(), line.c_str() + first, line.size() - first,
                                       LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0) {
            spdlog::debug("{}:{}: known_hosts line not understood by libssh2; skipped", source, number);
        }
    }
    return loaded;
}

std::string supported_subset(LIBSSH2_SESSION* session, int method_type, const std::string& wanted) {
    const char** algorithms = nullptr;
    const int count = libssh2_session_supported_algs(session, method_type, &algorithms);
    std::set<std::string> supported;
    for (int i = 0; i < count; ++i) supported.insert(algorithms[i]);
    if (count > 0) libssh2_free(session, static_cast<void*>(algorithms));
    std::vector<std::string> usable;
    for (const auto& name : util::split(wanted, ','))
        if (!name.empty() && supported.count(name)) usable.push_back(name);
    return util::join(usable, ",");
}

HostKeyPreference host_key_preference(LIBSSH2_SESSION* session, const SshTarget& target,
                                      const std::string& known_hosts) {
    const auto loaded = load(session, known_hosts);
    std::vector<std::string> known, all;
    for (const auto& type : kKeyTypes) {
        all.push_back(type.methods);
        // A key that cannot be right: MISMATCH means known_hosts has a key of this type for the host.
        const char probe = 0;
        const int rc = libssh2_knownhost_checkp(
            loaded.hosts.get(), target.host.c_str(), target.port, &probe, 1,
            LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type.knownhost_mask, nullptr);
        if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) known.push_back(type.methods);
    }
    const std::string known_supported =
        supported_subset(session, LIBSSH2_METHOD_HOSTKEY, util::join(known, ","));
    if (!known_supported.empty()) return {known_supported, true};
    return {supported_subset(session, LIBSSH2_METHOD_HOSTKEY, util::join(all, ",")), false};
}

void verify_host_key(LIBSSH2_SESSION* session, const SshTarget& target, const std::string& known_hosts,
                     bool accept_new) {
    std::size_t length = 0;
    int hostkey_type = 0;
    const char* key = libssh2_session_hostkey(session, &length, &hostkey_type);
    if (!key || length == 0) throw SshError("the server sent no host key");
    const std::string_view blob(key, length);
    const KeyType* type = key_type_of(hostkey_type);
    const std::string type_name = type ? type->name : "unknown key type";
    const std::string presented = type_name + " " + sha256_fingerprint(blob);

    const auto loaded = load(session, known_hosts);
    if (loaded.revoked.count(base64_encode(blob)))
        throw SshError("host key " + presented + " is marked @revoked in " + known_hosts +
                       "; refusing to connect");

    libssh2_knownhost* entry = nullptr;
    const int mask = LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                     (type ? type->knownhost_mask : LIBSSH2_KNOWNHOST_KEY_UNKNOWN);
    const int rc = libssh2_knownhost_checkp(loaded.hosts.get(), target.host.c_str(), target.port, key, length,
                                            mask, &entry);
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH) return;
    if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
        std::string recorded = "another key";
        if (entry && entry->key) {
            if (const auto old_blob = base64_decode(entry->key))
                recorded = type_name + " " + sha256_fingerprint(*old_blob);
        }
        throw SshError("HOST KEY CHANGED: " + known_hosts + " has " + recorded + " for " +
                       known_hosts_name(target.host, target.port) + ", but the host presents " + presented +
                       ". Refusing to connect: someone may be intercepting the connection, or the host was "
                       "reinstalled. If the change is expected, remove the old entry (ssh-keygen -R '" +
                       known_hosts_name(target.host, target.port) + "' -f " + known_hosts +
                       ") and connect again with --accept-new-host-keys");
    }
    if (rc != LIBSSH2_KNOWNHOST_CHECK_NOTFOUND)
        throw SshError("cannot check the host key against " + known_hosts);
    if (!accept_new) {
        throw SshError("unknown host key " + presented + ": " + known_hosts_name(target.host, target.port) +
                       " is not in " + known_hosts +
                       ". Verify the fingerprint with the host's administrator, then add the key (e.g. "
                       "`ssh-keyscan -p " +
                       std::to_string(target.port) + " " + target.host + " >> " + known_hosts +
                       "`) or run again with --accept-new-host-keys to trust and record it on first use");
    }
    if (!type) throw SshError("cannot record a host key of an unknown type");
    const std::string error =
        append_known_host(known_hosts, known_hosts_line(target.host, target.port, type->name, blob));
    if (!error.empty()) throw SshError("cannot record the new host key: " + error);
    spdlog::warn("{}: new host key {} accepted and added to {}", target.describe(), presented, known_hosts);
}

}  // namespace pdctl::exec::detail
