// Connect, handshake, host-key check and authentication of one node, and the socket wait that every
// non-blocking libssh2 call loops on.
#include "ssh_session.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "pdctl/util/durations.hpp"
#include "ssh_socket.hpp"

namespace pdctl::exec::detail {
namespace {

// curve25519 first: it is the cheapest key exchange, and the handshake is what costs CPU at scale.
constexpr const char* kKex =
    "curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,"
    "diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,"
    "diffie-hellman-group14-sha256";

// libssh2_session_free() on a non-blocking session returns EAGAIN, and frees nothing, while one of
// its channels still has a close to send: the case of a session abandoned at a command's deadline.
// With the socket shut down first, every send and receive fails at once, libssh2 stops trying to talk
// and the free completes (found by LeakSanitizer: each timed-out command leaked its whole session).
void free_session(LIBSSH2_SESSION* session, int fd) {
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    for (int attempt = 0; attempt < 16; ++attempt)
        if (libssh2_session_free(session) != LIBSSH2_ERROR_EAGAIN) return;
    spdlog::debug("an SSH session could not be freed; its memory is left until pdctl exits");
}

}  // namespace

std::string describe_duration(std::chrono::milliseconds duration) {
    const auto ms = duration.count();
    if (ms < 1000) return fmt::format("{} ms", ms);
    if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
    return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

SshSession::SshSession(const SshTarget& target, const SshOptions& options,
                       util::SteadyClock::time_point deadline)
    : target_(target), options_(options) {
    const auto started = util::SteadyClock::now();
    fd_ = connect_tcp(target_.host, target_.port, deadline, options_.connect_timeout);
    try {
        session_ = libssh2_session_init_ex(nullptr, nullptr, nullptr, this);
        if (!session_) throw SshError("cannot allocate an SSH session");
        libssh2_session_set_blocking(session_, 0);
        handshake(deadline);
        verify_host_key(session_, target_, options_.known_hosts, options_.accept_new_host_keys);
        authenticate(*this, options_, deadline);
        if (options_.keepalive_interval.count() > 0)
            libssh2_keepalive_config(session_, 1, static_cast<unsigned>(options_.keepalive_interval.count()));
    } catch (...) {
        if (session_) free_session(session_, fd_);
        session_ = nullptr;
        ::close(fd_);
        fd_ = -1;
        throw;
    }
    spdlog::debug("{}: connected as {} in {} ms", target_.describe(), target_.user,
                  util::milliseconds_since(started).count());
}

void SshSession::handshake(util::SteadyClock::time_point deadline) {
    const std::string kex = supported_subset(session_, LIBSSH2_METHOD_KEX, kKex);
    if (!kex.empty()) libssh2_session_method_pref(session_, LIBSSH2_METHOD_KEX, kex.c_str());
    // libssh2 prefers ECDSA host keys: offer what known_hosts holds for this host, or the host's ECDSA
    // key would be compared with its recorded ed25519 key and reported as changed.
    const HostKeyPreference preference = host_key_preference(session_, target_, options_.known_hosts);
    if (!preference.methods.empty())
        libssh2_session_method_pref(session_, LIBSSH2_METHOD_HOSTKEY, preference.methods.c_str());

    const auto rc = until_done(deadline, [&] { return libssh2_session_handshake(session_, fd_); });
    if (!rc) {
        throw SshError("SSH handshake timed out after " + describe_duration(options_.connect_timeout) +
                       " (the port accepts connections but no SSH server answers)");
    }
    if (*rc != 0) {
        std::string message = "SSH handshake failed: " + last_error();
        if (*rc == LIBSSH2_ERROR_KEX_FAILURE && preference.from_known_hosts) {
            message += " (pdctl offered only the host key types " + options_.known_hosts +
                       " holds for this host, " + preference.methods +
                       ", and the host offers none of them: did its host keys change?";
            if (preference.methods == "ssh-rsa") {
                message +=
                    " libssh2 1.10 checks RSA host keys only with SHA-1 `ssh-rsa`, which OpenSSH 8.8 and "
                    "later no longer offer: record the host's ed25519 key instead";
            }
            message += ")";
        }
        throw SshError(message);
    }
    // What the transfer's speed rests on (docs/benchmarks.md, push): libssh2 1.10 has no AES-GCM or
    // chacha20-poly1305, so a cipher with a separate MAC.
    const auto method = [&](int which) {
        const char* name = libssh2_session_methods(session_, which);
        return name ? name : "?";
    };
    spdlog::debug("{}: key exchange {}, cipher {}, MAC {}", target_.describe(), method(LIBSSH2_METHOD_KEX),
                  method(LIBSSH2_METHOD_CRYPT_CS), method(LIBSSH2_METHOD_MAC_CS));
}

SshSession::~SshSession() {
    if (broken_ && fd_ >= 0) {
        // A broken session may still have bytes queued for a host that stopped answering, a command
        // request among them. With a graceful close the kernel goes on retransmitting them, after
        // pdctl gave up on the command and even after pdctl exited, and the host runs the command
        // whenever its link comes back (a stale `stop` killing what a later run started). A zero
        // linger makes close() reset the connection and drop them.
        const linger reset{1, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    if (session_) {
        if (!broken_) {
            // Bounded: a host that stopped answering must not hold up pdctl's exit.
            const auto deadline = util::SteadyClock::now() + std::chrono::seconds(1);
            until_done(deadline, [&] {
                return libssh2_session_disconnect_ex(session_, SSH_DISCONNECT_BY_APPLICATION, "pdctl done",
                                                     "");
            });
        }
        free_session(session_, fd_);
    }
    if (fd_ >= 0) ::close(fd_);
}

bool SshSession::wait(util::SteadyClock::time_point deadline) {
    for (;;) {
        const auto now = util::SteadyClock::now();
        if (now >= deadline) return false;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
        if (options_.keepalive_interval.count() > 0) {
            int next = 0;
            if (libssh2_keepalive_send(session_, &next) == 0 && next > 0)
                left = std::min<long long>(left, static_cast<long long>(next) * 1000);
        }
        const int directions = libssh2_session_block_directions(session_);
        short events = 0;
        if (directions & LIBSSH2_SESSION_BLOCK_INBOUND) events |= POLLIN;
        if (directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) events |= POLLOUT;
        if (events == 0) events = POLLIN;  // libssh2 asked to retry without naming a direction
        pollfd pfd{fd_, events, 0};
        const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 60'000)));
        if (ready > 0) return true;
        if (ready < 0 && errno != EINTR) return true;  // let the next libssh2 call report the socket error
    }
}

std::string SshSession::last_error() const {
    char* message = nullptr;
    int length = 0;
    libssh2_session_last_error(session_, &message, &length, 0);
    return message && length > 0 ? std::string(message, static_cast<std::size_t>(length))
                                 : "unknown libssh2 error";
}

void SshSession::keepalive() {
    if (options_.keepalive_interval.count() <= 0) return;
    int next = 0;
    libssh2_keepalive_send(session_, &next);
}

}  // namespace pdctl::exec::detail
