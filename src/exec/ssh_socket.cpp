#include "ssh_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "ssh_session.hpp"

namespace pdctl::exec::detail {
namespace {

std::string cause_of(int error) {
    switch (error) {
        case ECONNREFUSED:
            return "connection refused (is sshd running and listening on that port?)";
        case EHOSTUNREACH:
            return "no route to host (host down or unreachable)";
        case ENETUNREACH:
            return "network unreachable";
        case ETIMEDOUT:
            return "connection timed out";
        default:
            return std::strerror(error);
    }
}

// One connect() attempt; returns the socket, or -1 with `error` set (ETIMEDOUT at the deadline).
int try_connect(const addrinfo& address, util::SteadyClock::time_point deadline, int& error) {
    const int fd =
        ::socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, address.ai_protocol);
    if (fd < 0) {
        error = errno;
        return -1;
    }
    auto fail = [&](int code) {
        error = code;
        ::close(fd);
        return -1;
    };
    if (::connect(fd, address.ai_addr, address.ai_addrlen) != 0) {
        if (errno != EINPROGRESS) return fail(errno);
        for (;;) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - util::SteadyClock::now())
                    .count();
            if (left <= 0) return fail(ETIMEDOUT);
            pollfd pfd{fd, POLLOUT, 0};
            const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
            if (ready < 0 && errno != EINTR) return fail(errno);
            if (ready > 0) break;
        }
        int so_error = 0;
        socklen_t length = sizeof so_error;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &length) != 0) return fail(errno);
        if (so_error != 0) return fail(so_error);
    }
    const int on = 1;
    // libssh2 writes small packets; without TCP_NODELAY each round trip waits on Nagle (~40 ms).
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    return fd;
}

}  // namespace

int connect_tcp(const std::string& host, int port, util::SteadyClock::time_point deadline,
                std::chrono::milliseconds timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (rc != 0) {
        throw SshError("cannot resolve host name '" + host +
                       "': " + (rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc)));
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
    int error = ETIMEDOUT;
    for (const addrinfo* address = found; address; address = address->ai_next) {
        const int fd = try_connect(*address, deadline, error);
        if (fd >= 0) return fd;
        if (error == ETIMEDOUT) break;  // the deadline is shared by every address
    }
    if (error == ETIMEDOUT)
        throw SshError("connect timed out after " + describe_duration(timeout) +
                       " (host down or port filtered?)");
    throw SshError(cause_of(error));
}

}  // namespace pdctl::exec::detail
