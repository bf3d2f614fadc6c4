#pragma once
// Plain TCP for the parts of the stack that are not HTTP: the torch.distributed rendezvous at
// --dist-init-addr and the Mooncake master's RPC port.

#include <optional>
#include <string>
#include <string_view>

#include "sim/process.hpp"

namespace pdsim {

// An owned socket descriptor.
class Socket {
  public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(Socket&& other) noexcept : fd_(other.release()) {}
    Socket& operator=(Socket&& other) noexcept;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    ~Socket() { reset(); }

    int fd() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release();
    void reset();

  private:
    int fd_ = -1;
};

struct HostPort {
    std::string host;  // without IPv6 brackets
    int port = 0;
};

// "host:port" or "[v6]:port"; nullopt if malformed.
std::optional<HostPort> split_host_port(std::string_view text);

// The address to connect to for a bind address: 0.0.0.0 -> 127.0.0.1, :: -> ::1.
std::string connect_host(const std::string& bind_host);

// On failure the Socket is invalid and `error` holds the cause (strerror text).
Socket listen_tcp(const std::string& host, int port, std::string& error);
Socket connect_tcp(const std::string& host, int port, Millis timeout, std::string& error);

// accept() that gives up after `timeout` (invalid Socket) so callers can watch a deadline.
Socket accept_for(const Socket& listener, Millis timeout);

bool send_all(const Socket& socket, std::string_view data);
// One '\n'-terminated line (without the '\n'), waiting at most `timeout`; nullopt on EOF, error,
// timeout or an over-long line.
std::optional<std::string> recv_line(const Socket& socket, Millis timeout);
// One '\n'-terminated line, waiting as long as it takes; nullopt only when the connection ends
// (EOF, error) or the line is over-long.
std::optional<std::string> recv_line_until_closed(const Socket& socket);

}  // namespace pdsim
