#pragma once
// An HTTP server on 127.0.0.1, a port of the kernel's choosing, answering until the test ends.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

namespace pdctl::testing {

// cpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed in Debian's library): when
// its accept thread is starved on a loaded machine, a burst of connects past that waits for SYN
// retransmits (1 s, then 3 s) and fails at a client's 5 s connect timeout. The servers pdctl talks to
// hold a burst (uvicorn listens with 2048), so the stand-in does too: listen() again on the same socket
// raises the backlog.
inline void raise_listen_backlog(int port) {
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        const int fd = std::stoi(entry.path().filename().string());
        int listening = 0;
        socklen_t length = sizeof listening;
        if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || listening == 0) continue;
        sockaddr_in address{};
        socklen_t size = sizeof address;
        if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0 ||
            address.sin_family != AF_INET)
            continue;
        if (ntohs(address.sin_port) == port) ::listen(fd, SOMAXCONN);
    }
}

class LoopbackServer {
  public:
    // `threads` > 0: that many worker threads (httplib's default is 8: too few to hold many streams).
    explicit LoopbackServer(const std::function<void(httplib::Server&)>& routes, std::size_t threads = 0) {
        routes(server_);
        if (threads > 0) server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        port_ = server_.bind_to_any_port("127.0.0.1");
        EXPECT_GT(port_, 0) << "cannot bind a loopback port";
        if (port_ <= 0) return;
        raise_listen_backlog(port_);
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // stop() does nothing to a server not yet in its accept loop: wait for it, or the join hangs.
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~LoopbackServer() {
        server_.stop();
        if (thread_.joinable()) thread_.join();
    }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;
    int port() const { return port_; }
    std::string url(const std::string& path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + path;
    }

  private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

}  // namespace pdctl::testing
