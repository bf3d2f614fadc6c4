// pdsim's router worker API (SMG and the gateway: POST /workers, GET and DELETE /workers/{id}) and a
// decode that must restart after its prefill restarted (sglang #16903): the two facts a rolling restart
// is built on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim_fixtures.hpp"
#include "sim_http.hpp"
#include "sim_process.hpp"

namespace pdsim_test {
namespace {

using ::testing::HasSubstr;

const nlohmann::json kPrompt = {{"text", "rolling"}, {"sampling_params", {{"max_new_tokens", 4}}}};

std::vector<std::string> smg(std::initializer_list<std::string> flags) {
    std::vector<std::string> args = {"smg", "launch", "--pd-disaggregation"};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
}

std::string status_in(const std::string& host, int port, const std::string& id) {
    const auto answer = http_get(host, port, "/workers/" + id);
    if (!answer) return "no answer";
    if (answer->status == 404) return "gone";
    return answer->json().value("status", "none");
}

TEST(SimWorkerApi, SmgAddsAWorkerThenDrainsAndRemovesIt) {
    const std::string host = "127.0.50.47";
    const std::string prefill_url = "http://" + host + ":47160";
    const std::string decode_url = "http://" + host + ":47162";
    const std::string added_url = "http://" + host + ":47163";
    SimProcess prefill("prefill",
                       sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port", "47160",
                                    "--disaggregation-bootstrap-port", "47161"}),
                       fast_env());
    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47162"}),
                      fast_env());
    SimProcess second("decode2",
                      sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47163"}),
                      fast_env());
    SimProcess router(
        "smg",
        smg({"--prefill", prefill_url, "47161", "--decode", decode_url, "--host", host, "--port", "47164"}),
        fast_env({{"PDSIM_ROUTER_DRAIN_MS", "400"}}));
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47164, "/readiness") == 200; }, kStartDeadline));

    // Add: accepted at once, pending until its first health check, then ready and serving.
    const nlohmann::json body = {{"url", added_url}, {"worker_type", "decode"}};
    const auto accepted = http_post(host, 47164, "/workers", body);
    ASSERT_TRUE(accepted);
    ASSERT_EQ(accepted->status, 202) << accepted->body;
    const std::string id = accepted->json()["worker_id"];
    EXPECT_EQ(accepted->json()["location"], "/workers/" + id);
    EXPECT_EQ(http_post(host, 47164, "/workers", body)->status, 409) << "a URL is registered once";
    EXPECT_EQ(http_post(host, 47164, "/workers", {{"url", added_url}, {"worker_type", "regular"}})->status,
              400);
    EXPECT_TRUE(wait_until([&] { return status_in(host, 47164, id) == "ready"; }, kStartDeadline));
    const auto listed = http_get(host, 47164, "/workers")->json();
    EXPECT_EQ(listed["stats"]["decode_count"], 2);
    EXPECT_TRUE(router.wait_for_log("Worker " + added_url + " (decode) added", kLogDeadline));

    // Delete the first decode: draining (no new requests) for the settle time, then gone; every request
    // meanwhile goes to the other decode and succeeds.
    const auto first = http_get(host, 47164, "/workers/" + decode_url);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->status, 200) << "a worker is found by its URL too";
    const std::string first_id = first->json()["id"];
    const auto removed = http_delete(host, 47164, "/workers/" + first_id);
    ASSERT_TRUE(removed);
    EXPECT_EQ(removed->status, 202);
    EXPECT_EQ(status_in(host, 47164, first_id), "draining");
    decode.signal(SIGKILL);  // a drained worker gets no request, so its death fails none
    for (int i = 0; i < 20; ++i) {
        const auto reply = http_post(host, 47164, "/generate", kPrompt);
        ASSERT_TRUE(reply);
        EXPECT_EQ(reply->status, 200) << reply->body;
    }
    EXPECT_TRUE(wait_until([&] { return status_in(host, 47164, first_id) == "gone"; }, kStartDeadline));
    EXPECT_EQ(http_delete(host, 47164, "/workers/" + first_id)->status, 404);
    EXPECT_EQ(status_of(host, 47164, "/readiness"), 200);
}

TEST(SimWorkerApi, ADecodeFailsTransfersFromARestartedPrefillUntilItRestarts) {
    const std::string host = "127.0.50.48";
    const auto prefill_args = sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port",
                                           "47170", "--disaggregation-bootstrap-port", "47171"});
    const auto decode_args =
        sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47172"});
    auto prefill = std::make_unique<SimProcess>("prefill", prefill_args, fast_env());
    auto decode = std::make_unique<SimProcess>("decode", decode_args, fast_env());
    SimProcess router("router",
                      router_args({"--prefill", "http://" + host + ":47170", "47171", "--decode",
                                   "http://" + host + ":47172", "--host", host, "--port", "47173"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47173, "/readiness") == 200; }, kStartDeadline));
    ASSERT_EQ(http_post(host, 47173, "/generate", kPrompt)->status, 200);

    prefill->signal(SIGKILL);
    ASSERT_TRUE(prefill->wait_exit(kStartDeadline));
    prefill = std::make_unique<SimProcess>("prefill-again", prefill_args, fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47170, "/health") == 200; }, kStartDeadline));
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47173, "/readiness") == 200; }, kStartDeadline));
    // Both answer /health, yet the decode's connection to the prefill is stale.
    EXPECT_EQ(status_of(host, 47172, "/health"), 200);
    const auto stale = http_post(host, 47173, "/generate", kPrompt);
    ASSERT_TRUE(stale);
    EXPECT_EQ(stale->status, 500);
    EXPECT_THAT(stale->body, HasSubstr("restarted since this decode connected to it"));

    decode->signal(SIGKILL);
    ASSERT_TRUE(decode->wait_exit(kStartDeadline));
    decode = std::make_unique<SimProcess>("decode-again", decode_args, fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47172, "/health") == 200; }, kStartDeadline));
    ASSERT_TRUE(wait_until(
        [&] {
            const auto reply = http_post(host, 47173, "/generate", kPrompt);
            return reply && reply->status == 200;
        },
        kStartDeadline))
        << "a restarted decode reconnects";
}

// SMG's metrics listener (--prometheus-port): the per-worker health gauge `pdctl export prometheus`
// alerts on follows the workers' health checks.
TEST(SimWorkerApi, SmgExportsEachWorkersHealthOnItsMetricsListener) {
    const std::string host = "127.0.50.49";
    const std::string prefill_url = "http://" + host + ":47170";
    const std::string decode_url = "http://" + host + ":47172";
    SimProcess prefill("prefill",
                       sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port", "47170",
                                    "--disaggregation-bootstrap-port", "47171"}),
                       fast_env());
    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", host, "--port", "47172"}),
                      fast_env());
    SimProcess router("smg",
                      smg({"--prefill", prefill_url, "47171", "--decode", decode_url, "--host", host,
                           "--port", "47174", "--prometheus-port", "47175"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, 47174, "/readiness") == 200; }, kStartDeadline));
    const auto metrics = [&] {
        const auto answer = http_get(host, 47175, "/metrics");
        return answer && answer->status == 200 ? answer->body : std::string("no answer");
    };
    const auto text = metrics();
    EXPECT_THAT(text, HasSubstr("smg_worker_health{worker=\"" + prefill_url + "\"} 1"));
    EXPECT_THAT(text, HasSubstr("smg_worker_health{worker=\"" + decode_url + "\"} 1"));
    EXPECT_THAT(text, HasSubstr("smg_worker_pool_size{worker_type=\"decode\",connection_mode=\"http\","
                                "model=\"default\"} 1"));
    EXPECT_TRUE(
        router.wait_for_log("Metrics server listening on " + host + ":47175 (/metrics)", kLogDeadline));

    decode.signal(SIGKILL);
    EXPECT_TRUE(wait_until(
        [&] {
            return metrics().find("smg_worker_health{worker=\"" + decode_url + "\"} 0") != std::string::npos;
        },
        kStartDeadline))
        << metrics();
    EXPECT_THAT(metrics(), HasSubstr("smg_worker_health{worker=\"" + prefill_url + "\"} 1"));
}

}  // namespace
}  // namespace pdsim_test
