#pragma once
// A bounded stream of POST /generate requests through a router, paced on one thread, for the
// tests that require every request to succeed while something restarts (restart --rolling).

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace pdctl::testing {

// POST /generate through the router every 10 ms on one thread, until stopped; every answer that is
// not a 200 with text is kept.
class GenerateStream {
  public:
    GenerateStream(const std::string& host, int port) : host_(host), port_(port) {
        thread_ = std::thread([this] { run(); });
    }
    ~GenerateStream() { stop(); }
    void stop() {
        running_ = false;
        if (thread_.joinable()) thread_.join();
    }
    int sent() const { return sent_; }
    // Safe while the stream runs (failures() is not: read it after stop()).
    int failed() const { return failed_; }
    const std::vector<std::string>& failures() const { return failures_; }

  private:
    void run() {
        httplib::Client client(host_, port_);
        client.set_connection_timeout(2, 0);
        client.set_read_timeout(20, 0);
        const nlohmann::json body = {{"text", "keep serving"}, {"sampling_params", {{"max_new_tokens", 4}}}};
        while (running_ && sent_ < kMaxRequests) {
            // Paced, not back to back: about 80 requests a second still cross every step of a roll,
            // without one core spent on the stream while other tests run beside it.
            if (sent_ > 0) std::this_thread::sleep_for(kPace);
            const auto reply = client.Post("/generate", body.dump(), "application/json");
            ++sent_;
            if (!reply) {
                failures_.push_back("no answer: " + httplib::to_string(reply.error()));
                ++failed_;
            } else if (reply->status != 200 ||
                       nlohmann::json::parse(reply->body, nullptr, false).value("text", "").empty()) {
                failures_.push_back("HTTP " + std::to_string(reply->status) + ": " +
                                    reply->body.substr(0, 300));
                ++failed_;
            }
        }
    }

    static constexpr int kMaxRequests = 200000;  // bounded even if stop() never came
    static constexpr std::chrono::milliseconds kPace{10};
    std::string host_;
    int port_;
    std::atomic<bool> running_{true};
    std::atomic<int> sent_{0};
    std::atomic<int> failed_{0};
    std::vector<std::string> failures_;
    std::thread thread_;
};

inline std::string first_failures(const std::vector<std::string>& failures) {
    std::string text;
    for (std::size_t i = 0; i < failures.size() && i < 5; ++i) text += "\n  " + failures[i];
    return text;
}

}  // namespace pdctl::testing
