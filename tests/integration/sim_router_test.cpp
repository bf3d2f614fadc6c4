// pdsim as `sglang_router.launch_router --pd-disaggregation`: dual dispatch through a real
// prefill group and decode, the bootstrap error a wrong prefill address causes, and readiness.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim_fixtures.hpp"
#include "sim_http.hpp"
#include "sim_process.hpp"

namespace pdsim_test {
namespace {

using ::testing::HasSubstr;

const nlohmann::json kHello = {{"text", "Hello"}, {"sampling_params", {{"max_new_tokens", 16}}}};

TEST(SimRouter, MiniLbRoundTripThroughTwoRankPrefillAndDecode) {
    const std::string p0 = "127.0.50.20";
    const std::string p1 = "127.0.50.21";
    const std::string d0 = "127.0.50.22";
    const std::string router_host = "127.0.50.23";
    auto prefill = [&](const std::string& host, const std::string& rank) {
        return sglang_args({"--disaggregation-mode", "prefill", "--host", host, "--port", "47100", "--nnodes",
                            "2", "--node-rank", rank, "--tp-size", "4", "--dist-init-addr", p0 + ":47101",
                            "--disaggregation-bootstrap-port", "47102"});
    };
    SimProcess prefill0("prefill0", prefill(p0, "0"), fast_env());
    SimProcess prefill1("prefill1", prefill(p1, "1"), fast_env());
    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", d0, "--port", "47103"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(p0, 47100, "/health") == 200; }, kStartDeadline));
    ASSERT_TRUE(wait_until([&] { return status_of(d0, 47103, "/health") == 200; }, kStartDeadline));

    SimProcess router("router",
                      router_args({"--mini-lb", "--prefill", "http://" + p0 + ":47100", "47102", "--decode",
                                   "http://" + d0 + ":47103", "--host", router_host, "--port", "47104"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(router_host, 47104, "/health") == 200; }, kStartDeadline));
    EXPECT_TRUE(router.wait_for_log("MiniLB is only for debugging purposes, it only supports random policy!",
                                    kLogDeadline));
    EXPECT_TRUE(router.wait_for_log("Uvicorn running on http://127.0.50.23:47104", kLogDeadline));

    auto reply = http_post(router_host, 47104, "/generate", kHello);
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->status, 200) << reply->body;
    nlohmann::json body = reply->json();
    EXPECT_FALSE(body["text"].get<std::string>().empty());
    EXPECT_EQ(body["meta_info"]["completion_tokens"], 16);
    EXPECT_EQ(body["meta_info"]["finish_reason"]["type"], "length");

    // Same prompt, same text: the answer is derived from the prompt.
    auto again = http_post(router_host, 47104, "/generate", kHello);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->json()["text"], body["text"]);

    // A batch gets one bootstrap room per prompt and one answer per prompt.
    nlohmann::json batch = {{"text", {"one", "two", "three"}}, {"sampling_params", {{"max_new_tokens", 2}}}};
    auto batched = http_post(router_host, 47104, "/generate", batch);
    ASSERT_TRUE(batched);
    ASSERT_EQ(batched->status, 200) << batched->body;
    EXPECT_EQ(batched->json().size(), 3U);

    EXPECT_EQ(status_of(router_host, 47104, "/health_generate"), 200);
    auto models = http_get(router_host, 47104, "/v1/models");
    ASSERT_TRUE(models);
    EXPECT_EQ(models->json()["data"][0]["id"], "deepseek-ai/DeepSeek-V3-0324");
}

TEST(SimRouter, WrongPrefillAddressFailsWithTheBootstrapError) {
    const std::string d0 = "127.0.50.24";
    const std::string router_host = "127.0.50.25";
    const std::string nowhere = "127.0.50.26";  // nothing listens there
    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", d0, "--port", "47110"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(d0, 47110, "/health") == 200; }, kStartDeadline));
    SimProcess router("router",
                      router_args({"--mini-lb", "--prefill", "http://" + nowhere + ":47111", "--decode",
                                   "http://" + d0 + ":47110", "--host", router_host, "--port", "47112"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(router_host, 47112, "/health") == 200; }, kStartDeadline));

    auto reply = http_post(router_host, 47112, "/generate", kHello);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 500);
    // No bootstrap port after --prefill: decode falls back to its own default, 8998.
    EXPECT_THAT(reply->body,
                HasSubstr("Error fetching prefill parallel info from bootstrap 127.0.50.26:8998"));
    EXPECT_THAT(reply->body, HasSubstr("Connection refused"));
    EXPECT_TRUE(decode.wait_for_log("Error fetching prefill parallel info from bootstrap 127.0.50.26:8998",
                                    kLogDeadline));
}

TEST(SimRouter, BootstrapPortMismatchFailsTheSameWay) {
    const std::string p0 = "127.0.50.27";
    const std::string d0 = "127.0.50.28";
    const std::string router_host = "127.0.50.29";
    SimProcess prefill("prefill",
                       sglang_args({"--disaggregation-mode", "prefill", "--host", p0, "--port", "47120",
                                    "--disaggregation-bootstrap-port", "47121"}),
                       fast_env());
    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", d0, "--port", "47122"}),
                      fast_env());
    // The router is not told the prefill's non-default bootstrap port (#11747).
    SimProcess router("router",
                      router_args({"--prefill", "http://" + p0 + ":47120", "--decode",
                                   "http://" + d0 + ":47122", "--host", router_host, "--port", "47123"}),
                      fast_env());
    ASSERT_TRUE(
        wait_until([&] { return status_of(router_host, 47123, "/readiness") == 200; }, kStartDeadline));

    auto reply = http_post(router_host, 47123, "/generate", kHello);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 500);
    EXPECT_THAT(reply->body,
                HasSubstr("Error fetching prefill parallel info from bootstrap 127.0.50.27:8998"));
}

TEST(SimRouter, RustRouterReadinessFollowsWorkerHealth) {
    const std::string p0 = "127.0.50.30";
    const std::string d0 = "127.0.50.31";
    const std::string router_host = "127.0.50.32";
    SimProcess router("router",
                      router_args({"--prefill", "http://" + p0 + ":47130", "47131", "--decode",
                                   "http://" + d0 + ":47132", "--host", router_host, "--port", "47133",
                                   "--policy", "round_robin", "--worker-startup-timeout-secs", "1800"}),
                      fast_env());
    ASSERT_TRUE(
        wait_until([&] { return status_of(router_host, 47133, "/liveness") == 200; }, kStartDeadline));
    EXPECT_TRUE(
        router.wait_for_log("Starting router on 127.0.50.32:47133 | mode: PrefillDecode", kLogDeadline));
    EXPECT_EQ(status_of(router_host, 47133, "/health"), 200);
    auto not_ready = http_get(router_host, 47133, "/readiness");
    ASSERT_TRUE(not_ready);
    EXPECT_EQ(not_ready->status, 503);
    EXPECT_EQ(not_ready->json()["reason"], "insufficient healthy workers");
    EXPECT_EQ(status_of(router_host, 47133, "/health_generate"), 503);
    EXPECT_EQ(http_post(router_host, 47133, "/generate", kHello)->status, 503);

    SimProcess prefill("prefill",
                       sglang_args({"--disaggregation-mode", "prefill", "--host", p0, "--port", "47130",
                                    "--disaggregation-bootstrap-port", "47131"}),
                       fast_env());
    // Prefill alone is not enough.
    ASSERT_TRUE(wait_until([&] { return status_of(p0, 47130, "/health") == 200; }, kStartDeadline));
    EXPECT_FALSE(wait_until([&] { return status_of(router_host, 47133, "/readiness") == 200; }, 300ms));

    SimProcess decode("decode",
                      sglang_args({"--disaggregation-mode", "decode", "--host", d0, "--port", "47132"}),
                      fast_env());
    ASSERT_TRUE(
        wait_until([&] { return status_of(router_host, 47133, "/readiness") == 200; }, kStartDeadline));
    auto ready = http_get(router_host, 47133, "/readiness");
    EXPECT_EQ(ready->json()["status"], "ready");
    EXPECT_EQ(ready->json()["healthy_workers"], 2);
    EXPECT_EQ(ready->json()["total_workers"], 2);
    EXPECT_EQ(status_of(router_host, 47133, "/health_generate"), 200);

    auto reply = http_post(router_host, 47133, "/generate", kHello);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200) << reply->body;
}

// SMG (`smg launch`): each worker's status in /workers, pending until its first passed check, failed
// once still pending after --worker-startup-timeout-secs; MiniLB has neither /readiness nor /workers.
TEST(SimRouter, SmgListsWorkerStatesAndMiniLbHasNoWorkerApi) {
    const std::string p0 = "127.0.50.45";
    const std::string router_host = "127.0.50.46";
    const std::string prefill_url = "http://" + p0 + ":47150";
    const std::string decode_url = "http://" + p0 + ":47152";  // never started
    const auto smg_args = [&](const std::string& port, const std::string& timeout) {
        return std::vector<std::string>{"smg",
                                        "launch",
                                        "--pd-disaggregation",
                                        "--prefill",
                                        prefill_url,
                                        "47151",
                                        "--decode",
                                        decode_url,
                                        "--host",
                                        router_host,
                                        "--port",
                                        port,
                                        "--worker-startup-timeout-secs",
                                        timeout};
    };
    SimProcess patient("smg", smg_args("47153", "1800"), fast_env());
    SimProcess impatient("smg", smg_args("47155", "1"), fast_env());
    const auto state_of = [&](const std::string& port, const std::string& url) {
        const auto answer = http_get(router_host, std::stoi(port), "/workers");
        if (!answer || answer->status != 200) return std::string("no answer");
        const auto list = answer->json();
        for (const auto& worker : list["workers"])
            if (worker["url"] == url) return worker.value("status", "none");
        return std::string("absent");
    };
    ASSERT_TRUE(
        wait_until([&] { return status_of(router_host, 47153, "/liveness") == 200; }, kStartDeadline));
    EXPECT_EQ(state_of("47153", prefill_url), "pending");
    SimProcess prefill("prefill",
                       sglang_args({"--disaggregation-mode", "prefill", "--host", p0, "--port", "47150",
                                    "--disaggregation-bootstrap-port", "47151"}),
                       fast_env());
    EXPECT_TRUE(wait_until([&] { return state_of("47153", prefill_url) == "ready"; }, kStartDeadline));
    EXPECT_EQ(state_of("47153", decode_url), "pending");
    EXPECT_EQ(status_of(router_host, 47153, "/readiness"), 503) << "no ready decode";
    // Past its 1 s a worker that never answered has failed for good.
    EXPECT_TRUE(wait_until([&] { return state_of("47155", decode_url) == "failed"; }, kStartDeadline));

    SimProcess minilb("minilb",
                      router_args({"--mini-lb", "--prefill", prefill_url, "47151", "--decode", decode_url,
                                   "--host", router_host, "--port", "47154"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(router_host, 47154, "/health") == 200; }, kStartDeadline));
    EXPECT_EQ(status_of(router_host, 47154, "/readiness"), 404);
    EXPECT_EQ(status_of(router_host, 47154, "/workers"), 404);
}

TEST(SimRouter, RequiresPdDisaggregationAndHonoursCrashAtInit) {
    SimProcess plain("plain", {"sglang_router.launch_router", "--host", "127.0.50.33", "--port", "47140"});
    EXPECT_EQ(plain.wait_exit(5s), 2);
    EXPECT_TRUE(plain.wait_for_log("--pd-disaggregation", kLogDeadline));

    SimProcess crashing("crashing",
                        router_args({"--mini-lb", "--prefill", "http://127.0.50.34:47141", "--decode",
                                     "http://127.0.50.34:47142", "--host", "127.0.50.33", "--port", "47143"}),
                        fast_env({{"PDSIM_CRASH_AT", "init"}}));
    EXPECT_EQ(crashing.wait_exit(5s), 1);
    EXPECT_TRUE(crashing.wait_for_log("pdsim injected crash at init", kLogDeadline));
    EXPECT_FALSE(port_open("127.0.50.33", 47143));
}

}  // namespace
}  // namespace pdsim_test
