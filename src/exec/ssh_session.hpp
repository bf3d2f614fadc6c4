#pragma once
// One authenticated libssh2 session to one node (internal to the SSH executor). Everything runs in
// libssh2's non-blocking mode; every wait is a poll() on the socket bounded by a deadline.

#include <libssh2.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pdctl/exec/ssh_executor.hpp"
#include "pdctl/exec/ssh_target.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::exec::detail {

// The node could not be reached, or the connection broke. The message is the cause, without the node
// (the executor prefixes it).
class SshError : public std::runtime_error {
  public:
    explicit SshError(const std::string& message, bool command_started = false)
        : std::runtime_error(message), command_started_(command_started) {}
    bool command_started() const { return command_started_; }

  private:
    bool command_started_;
};

// "10 s", "1.5 s", "200 ms": for messages.
std::string describe_duration(std::chrono::milliseconds duration);

class SshSession {
  public:
    // Connects, handshakes, verifies the host key and authenticates before `deadline`; throws SshError.
    SshSession(const SshTarget& target, const SshOptions& options, util::SteadyClock::time_point deadline);
    ~SshSession();  // polite disconnect (bounded), then free
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    LIBSSH2_SESSION* raw() const { return session_; }
    const SshTarget& target() const { return target_; }

    // Waits until the socket is ready in the direction(s) libssh2 is blocked on, or `deadline`.
    // False when the deadline passed. Sends keepalives while waiting.
    bool wait(util::SteadyClock::time_point deadline);
    // Repeats `step` while it returns LIBSSH2_ERROR_EAGAIN; nullopt if `deadline` passed first.
    template <typename Step>
    std::optional<int> until_done(util::SteadyClock::time_point deadline, Step step) {
        for (;;) {
            const int rc = step();
            if (rc != LIBSSH2_ERROR_EAGAIN) return rc;
            // A step cut at its deadline leaves libssh2 in the middle of it, and its bytes may sit in
            // the socket's send queue: the session is not reused, and it is reset when dropped.
            if (!wait(deadline)) {
                broken_ = true;
                return std::nullopt;
            }
        }
    }
    // libssh2's description of its last error.
    std::string last_error() const;
    // Sends a keepalive if one is due (nothing when keepalives are off).
    void keepalive();

    // A session that failed mid-command is not reused: the next command connects again.
    bool broken() const { return broken_; }
    void mark_broken() { broken_ = true; }

  private:
    void open_socket(util::SteadyClock::time_point deadline);
    void handshake(util::SteadyClock::time_point deadline);

    SshTarget target_;
    const SshOptions& options_;
    int fd_ = -1;
    LIBSSH2_SESSION* session_ = nullptr;
    bool broken_ = false;
    bool host_key_methods_restricted_ = false;
    std::string host_key_methods_;
};

// A known_hosts file as libssh2's matcher plus the keys marked @revoked (which libssh2 does not read).
struct KnownHostsDeleter {
    void operator()(LIBSSH2_KNOWNHOSTS* hosts) const { libssh2_knownhost_free(hosts); }
};
using KnownHostsPtr = std::unique_ptr<LIBSSH2_KNOWNHOSTS, KnownHostsDeleter>;
struct LoadedKnownHosts {
    KnownHostsPtr hosts;
    std::set<std::string> revoked;  // base64 key blobs of @revoked lines
};
// Reads known_hosts `text` (from `source`, for messages) line by line, so that one line libssh2 cannot
// parse (certificate authorities, security-key types) does not hide the lines after it. The text is
// whatever is on disk: tests/fuzz/known_hosts_fuzz.cpp feeds it arbitrary bytes.
LoadedKnownHosts parse_known_hosts(LIBSSH2_SESSION* session, std::string_view text,
                                   const std::string& source);

// Host keys (ssh_host_key.cpp): the method preference from known_hosts, and the check after the
// handshake. Throws SshError for an unknown (unless accept_new) or changed key.
struct HostKeyPreference {
    std::string methods;    // for LIBSSH2_METHOD_HOSTKEY
    bool from_known_hosts;  // false: the host has no entry, every supported type is offered
};
HostKeyPreference host_key_preference(LIBSSH2_SESSION* session, const SshTarget& target,
                                      const std::string& known_hosts);
void verify_host_key(LIBSSH2_SESSION* session, const SshTarget& target, const std::string& known_hosts,
                     bool accept_new);

// Authentication (ssh_auth.cpp): explicit keys, then ssh-agent, then the default keys. Throws SshError.
void authenticate(SshSession& session, const SshOptions& options, util::SteadyClock::time_point deadline);

// Comma-joined `wanted` algorithms that this libssh2 supports for `method_type`, in `wanted`'s order.
std::string supported_subset(LIBSSH2_SESSION* session, int method_type, const std::string& wanted);

}  // namespace pdctl::exec::detail
