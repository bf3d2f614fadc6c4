#pragma once
// An HTTP server on 127.0.0.1, a port of the kernel's choosing, answering until the test ends.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

namespace pdctl::testing {

class LoopbackServer {
  public:
    // `threads` > 0: that many worker threads (httplib's default is 8: too few to hold many streams).
    explicit LoopbackServer(const std::function<void(httplib::Server&)>& routes, std::size_t threads = 0) {
        routes(server_);
        if (threads > 0) server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        port_ = server_.bind_to_any_port("127.0.0.1");
        EXPECT_GT(port_, 0) << "cannot bind a loopback port";
        if (port_ <= 0) return;
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
