#include "sim/net.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace pdsim {
namespace {

using AddrInfoPtr = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

AddrInfoPtr resolve(const std::string& host, int port, bool passive, std::string& error) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    addrinfo* result = nullptr;
    std::string service = std::to_string(port);
    int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &result);
    if (rc != 0) {
        error = gai_strerror(rc);
        return {nullptr, &freeaddrinfo};
    }
    return {result, &freeaddrinfo};
}

bool wait_fd(int fd, short events, Millis timeout) {
    pollfd pfd{fd, events, 0};
    int rc = 0;
    do {
        rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    return rc > 0;
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
    if (this != &other) {
        reset();
        fd_ = other.release();
    }
    return *this;
}

int Socket::release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

void Socket::reset() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

std::optional<HostPort> split_host_port(std::string_view text) {
    std::string_view host;
    std::string_view port;
    if (!text.empty() && text.front() == '[') {
        auto close = text.find("]:");
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        auto colon = text.rfind(':');
        if (colon == std::string_view::npos) {
            return std::nullopt;
        }
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (host.empty() || port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    int number = std::stoi(std::string(port));
    if (number <= 0 || number > 65535) {
        return std::nullopt;
    }
    return HostPort{std::string(host), number};
}

std::string connect_host(const std::string& bind_host) {
    if (bind_host == "0.0.0.0" || bind_host.empty()) {
        return "127.0.0.1";
    }
    if (bind_host == "::") {
        return "::1";
    }
    return bind_host;
}

Socket listen_tcp(const std::string& host, int port, std::string& error) {
    AddrInfoPtr addrs = resolve(host, port, true, error);
    for (addrinfo* ai = addrs.get(); ai != nullptr; ai = ai->ai_next) {
        Socket socket(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
        if (!socket.valid()) {
            error = std::strerror(errno);
            continue;
        }
        int one = 1;
        ::setsockopt(socket.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(socket.fd(), ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(socket.fd(), 64) == 0) {
            return socket;
        }
        error = std::strerror(errno);
    }
    return Socket();
}

Socket connect_tcp(const std::string& host, int port, Millis timeout, std::string& error) {
    AddrInfoPtr addrs = resolve(host, port, false, error);
    for (addrinfo* ai = addrs.get(); ai != nullptr; ai = ai->ai_next) {
        Socket socket(
            ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
        if (!socket.valid()) {
            error = std::strerror(errno);
            continue;
        }
        int rc = ::connect(socket.fd(), ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            if (!wait_fd(socket.fd(), POLLOUT, timeout)) {
                error = "Connection timed out";
                continue;
            }
            int so_error = 0;
            socklen_t len = sizeof so_error;
            ::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &so_error, &len);
            rc = so_error == 0 ? 0 : -1;
            errno = so_error;
        }
        if (rc != 0) {
            error = std::strerror(errno);
            continue;
        }
        // Back to blocking: the rest of the protocol uses poll() where it needs a timeout.
        ::fcntl(socket.fd(), F_SETFL, ::fcntl(socket.fd(), F_GETFL) & ~O_NONBLOCK);
        return socket;
    }
    return Socket();
}

Socket accept_for(const Socket& listener, Millis timeout) {
    if (!wait_fd(listener.fd(), POLLIN, timeout)) {
        return Socket();
    }
    return Socket(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
}

bool send_all(const Socket& socket, std::string_view data) {
    while (!data.empty()) {
        ssize_t sent = ::send(socket.fd(), data.data(), data.size(), MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) {
            continue;
        }
        if (sent <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
}

namespace {

// Byte by byte: the lines are a few bytes long, and nothing after the '\n' may be consumed. Without a
// timeout it waits as long as the connection lasts.
std::optional<std::string> read_line(const Socket& socket, std::optional<Millis> timeout) {
    std::string line;
    while (line.size() < 256) {
        if (timeout && !wait_fd(socket.fd(), POLLIN, *timeout)) {
            return std::nullopt;
        }
        char c = 0;
        ssize_t got = ::recv(socket.fd(), &c, 1, 0);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return std::nullopt;
        }
        if (c == '\n') {
            return line;
        }
        line.push_back(c);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> recv_line(const Socket& socket, Millis timeout) {
    return read_line(socket, timeout);
}

std::optional<std::string> recv_line_until_closed(const Socket& socket) {
    return read_line(socket, std::nullopt);
}

}  // namespace pdsim
