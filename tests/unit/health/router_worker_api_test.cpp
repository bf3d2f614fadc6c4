// The router worker API's requests and how its answers are read, against a scripted prober.
#include "pdctl/health/router_worker_api.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace pdctl::health {
namespace {

// Records each request and answers from a script.
class RecordingProber : public HttpProber {
  public:
    ProbeResult answer{200, "", ""};
    std::vector<std::string> requests;

    ProbeResult get(const std::string& url, std::chrono::milliseconds) override {
        requests.push_back("GET " + url);
        return answer;
    }
    ProbeResult post(const std::string& url, const std::string& body, const std::string&,
                     const PostTimeouts&) override {
        requests.push_back("POST " + url + " " + body);
        return answer;
    }
    ProbeResult remove(const std::string& url, std::chrono::milliseconds) override {
        requests.push_back("DELETE " + url);
        return answer;
    }
};

TEST(RouterWorkerApi, ReadsTheListWithIdsStatusAndHealth) {
    std::string error;
    const auto workers = parse_worker_list(
        R"({"workers":[{"id":"4f1e","url":"http://10.0.0.5:30000/","worker_type":"decode","is_healthy":true,
            "status":"ready"},{"url":"http://10.0.0.1:30000","worker_type":"prefill","is_healthy":false}],
            "total":2})",
        error);
    ASSERT_TRUE(workers) << error;
    ASSERT_EQ(workers->size(), 2u);
    EXPECT_EQ((*workers)[0].id, "4f1e");
    EXPECT_EQ((*workers)[0].url, "http://10.0.0.5:30000") << "trailing slash dropped";
    EXPECT_TRUE((*workers)[0].healthy);
    EXPECT_EQ((*workers)[0].status, "ready");
    EXPECT_EQ((*workers)[1].id, "http://10.0.0.1:30000") << "a router without ids names workers by URL";
    EXPECT_FALSE((*workers)[1].healthy);
    ASSERT_NE(find_worker(*workers, "http://10.0.0.5:30000/"), nullptr);
    EXPECT_EQ(find_worker(*workers, "http://10.0.0.9:30000"), nullptr);

    EXPECT_FALSE(parse_worker_list("OK", error));
    EXPECT_EQ(error, "the answer is not a worker list: OK");
}

TEST(RouterWorkerApi, AddAndRemoveSayWhatTheRouterAnswered) {
    RecordingProber prober;
    RouterWorkerApi api(prober, "http://10.0.0.5:8000/", std::chrono::seconds(3));
    prober.answer = {202, R"({"status":"accepted"})", ""};
    EXPECT_EQ(api.add("http://10.0.0.1:30000", "prefill", 8998), "");
    EXPECT_EQ(api.remove("http://10.0.0.7:30000"), "");
    ASSERT_EQ(prober.requests.size(), 2u);
    EXPECT_EQ(
        prober.requests[0],
        R"(POST http://10.0.0.5:8000/workers {"bootstrap_port":8998,"url":"http://10.0.0.1:30000","worker_type":"prefill"})");
    EXPECT_EQ(prober.requests[1], "DELETE http://10.0.0.5:8000/workers/http%3A%2F%2F10.0.0.7%3A30000")
        << "an id that is a URL is one path segment";

    prober.answer = {409, "", ""};
    EXPECT_EQ(api.add("http://10.0.0.1:30000", "prefill", 8998), "") << "already listed counts as added";
    prober.answer = {404, "", ""};
    EXPECT_EQ(api.remove("abc"), "") << "no longer listed counts as removed";
    prober.answer = {503, "{\"error\":\"draining\"}\n", ""};
    EXPECT_EQ(api.remove("abc"),
              R"(DELETE http://10.0.0.5:8000/workers/abc: HTTP 503: {"error":"draining"})");
    prober.answer = {0, "", "connection refused or unreachable"};
    std::string error;
    EXPECT_FALSE(api.list(error));
    EXPECT_EQ(error, "GET http://10.0.0.5:8000/workers: connection refused or unreachable");
}

}  // namespace
}  // namespace pdctl::health
