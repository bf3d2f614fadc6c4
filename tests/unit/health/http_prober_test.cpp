// RealHttpProber::post against a real HTTP server on loopback: what smoke's POST /generate relies on.
#include "pdctl/health/http_prober.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <functional>
#include <string>
#include <thread>

#include "unit/support/loopback_server.hpp"

namespace pdctl::health {
namespace {

using pdctl::testing::LoopbackServer;

TEST(HttpProberPost, SendsTheBodyAndReturnsTheWholeAnswer) {
    std::string received, received_type;
    const std::string long_answer(2000, 'a');  // longer than get() keeps: a generation is not cut short
    LoopbackServer server([&](httplib::Server& routes) {
        routes.Post("/generate", [&](const httplib::Request& request, httplib::Response& response) {
            received = request.body;
            received_type = request.get_header_value("Content-Type");
            response.status = 201;
            response.set_content(long_answer, "text/plain");
        });
    });
    RealHttpProber prober;
    const auto answer = prober.post(server.url("/generate"), R"({"text":"Hi"})", "application/json", {});
    EXPECT_EQ(answer.status, 201);
    EXPECT_EQ(answer.body, long_answer);
    EXPECT_EQ(answer.error, "");
    EXPECT_EQ(received, R"({"text":"Hi"})");
    EXPECT_EQ(received_type, "application/json");
}

TEST(HttpProberPost, NoServerIsNoAnswerWithHttplibsReason) {
    int port = 0;
    {
        LoopbackServer closed([](httplib::Server&) {});
        port = closed.port();
    }  // the port is free again: nothing listens on it now
    RealHttpProber prober;
    const auto answer =
        prober.post("http://127.0.0.1:" + std::to_string(port) + "/generate", "{}", "application/json", {});
    EXPECT_EQ(answer.status, 0);
    EXPECT_EQ(answer.error, httplib::to_string(httplib::Error::Connection));
}

TEST(HttpProberPost, ReadTimeoutEndsTheWait) {
    LoopbackServer server([](httplib::Server& routes) {
        routes.Post("/slow", [](const httplib::Request&, httplib::Response& response) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            response.set_content("late", "text/plain");
        });
    });
    RealHttpProber prober;
    PostTimeouts timeouts;
    timeouts.read = std::chrono::milliseconds(200);
    const auto answer = prober.post(server.url("/slow"), "{}", "application/json", timeouts);
    EXPECT_EQ(answer.status, 0);
    EXPECT_EQ(answer.error, httplib::to_string(httplib::Error::Read));
}

TEST(HttpProberPost, AnythingButHttpIsRefusedUnsent) {
    RealHttpProber prober;
    const auto answer = prober.post("https://example.invalid/generate", "{}", "application/json", {});
    EXPECT_EQ(answer.status, 0);
    EXPECT_EQ(answer.error, "not an http:// URL: https://example.invalid/generate");
}

}  // namespace
}  // namespace pdctl::health
