// libFuzzer target: the known_hosts reader (exec::detail::parse_known_hosts: pdctl's line splitting and
// @revoked parsing, then libssh2's own line parser) and the lookups verify_host_key makes against the
// result, plus the base64 decoder used on recorded keys.
#include <libssh2.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exec/ssh_session.hpp"
#include "pdctl/exec/known_hosts.hpp"

// Debian 12's libssh2 1.10 leaks an HMAC context for every hashed (|1|salt|hash) entry it compares in
// libssh2_knownhost_checkp, and the decoded buffer of a hashed line with invalid base64 (upstream
// libssh2 PR #2245, issue #1957). Not pdctl's to fix, and small and bounded in a short-lived CLI, so
// those leaks are suppressed here; full stacks (libcrypto has no frame pointers) let the suppression
// see the libssh2 frame, and any leak without one still fails the run.
extern "C" const char* __asan_default_options() {
    return "fast_unwind_on_malloc=0";
}
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libssh2.so\n";
}

namespace {

LIBSSH2_SESSION* g_session = nullptr;

// A made-up ed25519 public key blob (type string + 32 key bytes), as a server would present.
std::string key_blob() {
    std::string blob = std::string("\0\0\0\x0b", 4) + "ssh-ed25519" + std::string("\0\0\0\x20", 4);
    for (int i = 0; i < 32; ++i) blob += static_cast<char>(i * 7);
    return blob;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (libssh2_init(0) != 0) std::abort();
    g_session = libssh2_session_init();
    if (!g_session) std::abort();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace pdctl::exec;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto loaded = detail::parse_known_hosts(g_session, text, "fuzz_known_hosts");
    static const std::string blob = key_blob();
    (void)loaded.revoked.count(base64_encode(blob));
    for (const auto& [host, port] :
         {std::pair{"10.0.0.1", 22}, std::pair{"node1", 2222}, std::pair{"127.0.0.1", 22}}) {
        libssh2_knownhost* entry = nullptr;
        const int rc = libssh2_knownhost_checkp(
            loaded.hosts.get(), host, port, blob.data(), blob.size(),
            LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | LIBSSH2_KNOWNHOST_KEY_ED25519,
            &entry);
        // What verify_host_key does with a mismatching entry: decode the recorded key for the message.
        if (rc == LIBSSH2_KNOWNHOST_CHECK_MISMATCH && entry && entry->key) {
            if (const auto old_blob = base64_decode(entry->key)) (void)sha256_fingerprint(*old_blob);
        }
    }
    if (const auto decoded = base64_decode(text)) (void)base64_encode(*decoded);
    return 0;
}
