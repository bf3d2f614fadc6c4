#pragma once
// The TCP part of an SSH connection (internal): resolve, connect with a deadline, TCP_NODELAY.

#include <chrono>
#include <string>

namespace pdctl::exec::detail {

// Returns a connected non-blocking socket with TCP_NODELAY and SO_KEEPALIVE, trying every address the
// host resolves to. Throws SshError naming the cause (cannot resolve, refused, no route, timed out).
// `timeout` is only for the message.
int connect_tcp(const std::string& host, int port, std::chrono::steady_clock::time_point deadline,
                std::chrono::milliseconds timeout);

}  // namespace pdctl::exec::detail
