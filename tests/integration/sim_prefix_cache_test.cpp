// pdsim's prefix cache and its answers (docs/pdsim.md, "Prefix cache" and "Streaming"): a repeated
// prompt reports its cached tokens and is computed faster by what the capacity model predicts, on a
// plain server and through a PD cluster's router; /flush_cache empties it and is refused while a
// request is in flight; streamed chunks carry the whole text so far, or only the new part.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "pdctl_harness.hpp"
#include "sim_fixtures.hpp"
#include "sim_http.hpp"

namespace {

using namespace pdsim_test;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr int kPromptTokens = 2000;
constexpr double kPlainTokensPerS = 4000;  // one GPU: 2000 tokens take 500 ms uncached

json prompt_of_ids(int count, int offset) {
    json ids = json::array();
    for (int i = 0; i < count; ++i) ids.push_back(offset + i);
    return ids;
}

// One non-streamed request of one output token: its wall time is its TTFT.
std::pair<json, double> timed_generate(const std::string& host, int port, const json& body) {
    const auto start = std::chrono::steady_clock::now();
    auto reply = http_post(host, port, "/generate", body);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!reply || reply->status != 200) return {json(), ms};
    return {reply->json(), ms};
}

TEST(SimServerPrefixCache, ARepeatedPromptReportsItsCachedTokensAndSkipsTheirCompute) {
    const std::string host = "127.0.160.10";
    const int port = 47600;
    SimProcess server("plain",
                      sglang_args({"--host", host, "--port", std::to_string(port), "--enable-metrics"}),
                      fast_env({{"PDSIM_PREFILL_TOKENS_PER_S", "4000"}}));
    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));

    const json body = {{"input_ids", prompt_of_ids(kPromptTokens, 1)},
                       {"sampling_params", {{"max_new_tokens", 1}}}};
    const auto [first, first_ms] = timed_generate(host, port, body);
    const auto [second, second_ms] = timed_generate(host, port, body);
    ASSERT_TRUE(first.is_object());
    ASSERT_TRUE(second.is_object());
    EXPECT_EQ(first["meta_info"]["cached_tokens"], 0);
    EXPECT_EQ(first["meta_info"]["prompt_tokens"], kPromptTokens);
    // All but the last token: SGLang always computes one to sample from.
    EXPECT_EQ(second["meta_info"]["cached_tokens"], kPromptTokens - 1);
    const double saved_ms = (kPromptTokens - 1) / kPlainTokensPerS * 1000;  // 500 ms
    EXPECT_GE(first_ms, kPromptTokens / kPlainTokensPerS * 1000 * 0.9);
    EXPECT_LT(second_ms, first_ms - saved_ms * 0.8) << first_ms << " ms then " << second_ms << " ms";
    EXPECT_TRUE(server.wait_for_log("#new-token: 1, #cached-token: 1999,", kLogDeadline));

    // A prompt that shares only its first half hits that half.
    json half = body;
    half["input_ids"] = prompt_of_ids(kPromptTokens / 2, 1);
    for (int i = 0; i < kPromptTokens / 2; ++i) half["input_ids"].push_back(900000 + i);
    const auto [shared, shared_ms] = timed_generate(host, port, half);
    EXPECT_EQ(shared["meta_info"]["cached_tokens"], kPromptTokens / 2);

    auto metrics = http_get(host, port, "/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_THAT(metrics->body, HasSubstr("sglang:cached_tokens_total{"));
    EXPECT_THAT(metrics->body, HasSubstr("# TYPE sglang:cache_hit_rate gauge"));
    EXPECT_THAT(metrics->body, HasSubstr("mode=\"prefill_cache\"} 2999"));

    // /flush_cache empties it: the same prompt is computed whole again.
    auto flushed = http_post(host, port, "/flush_cache", json::object());
    ASSERT_TRUE(flushed);
    EXPECT_EQ(flushed->status, 200);
    EXPECT_THAT(flushed->body, HasSubstr("Cache flushed."));
    EXPECT_TRUE(server.wait_for_log("Cache flushed successfully!", kLogDeadline));
    const auto [again, again_ms] = timed_generate(host, port, body);
    EXPECT_EQ(again["meta_info"]["cached_tokens"], 0);
}

TEST(SimServerPrefixCache, FlushIsRefusedWhileARequestIsInFlight) {
    const std::string host = "127.0.160.11";
    const int port = 47610;
    SimProcess server("plain", sglang_args({"--host", host, "--port", std::to_string(port)}),
                      fast_env({{"PDSIM_TOKEN_MS", "50"}}));
    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));
    std::thread slow([&] {
        http_post(host, port, "/generate",
                  {{"text", "a slow request"}, {"sampling_params", {{"max_new_tokens", 80}}}});
    });
    // 4 s of decoding: the flush is refused once the request is in.
    EXPECT_TRUE(wait_until([&] { return status_of(host, port, "/flush_cache") == 400; }, kStartDeadline));
    slow.join();
    EXPECT_TRUE(
        server.wait_for_log("Cache not flushed because there are pending requests. #queue-req: 0, "
                            "#running-req: 1",
                            kLogDeadline));
    EXPECT_EQ(status_of(host, port, "/flush_cache"), 200);
    EXPECT_TRUE(server.wait_for_log("Cache flushed successfully!", kLogDeadline));
}

TEST(SimServerPrefixCache, DisableRadixCacheKeepsNothing) {
    const std::string host = "127.0.160.12";
    const int port = 47620;
    SimProcess server("plain",
                      sglang_args({"--host", host, "--port", std::to_string(port), "--disable-radix-cache"}),
                      fast_env());
    ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));
    const json body = {{"text", "one two three four"}, {"sampling_params", {{"max_new_tokens", 2}}}};
    http_post(host, port, "/generate", body);
    auto second = http_post(host, port, "/generate", body);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->json()["meta_info"]["cached_tokens"], 0);
}

// The data: events of a streamed answer, parsed, in order.
std::vector<std::string> events_of(const std::string& body) {
    std::vector<std::string> events;
    std::size_t at = 0;
    while ((at = body.find("data: ", at)) != std::string::npos) {
        const std::size_t end = body.find("\n\n", at);
        events.push_back(body.substr(at + 6, end - at - 6));
        at = end;
    }
    return events;
}

TEST(SimServerStreaming, ChunksCarryTheWholeTextSoFarUnlessIncremental) {
    const std::string host = "127.0.160.13";
    for (const bool incremental : {false, true}) {
        const int port = incremental ? 47640 : 47630;
        std::vector<std::string> flags = {"--host", host, "--port", std::to_string(port)};
        auto args = sglang_args({"--host", host, "--port", std::to_string(port)});
        if (incremental) args.push_back("--incremental-streaming-output");
        SimProcess server("plain", args, fast_env());
        ASSERT_TRUE(wait_until([&] { return status_of(host, port, "/health") == 200; }, kStartDeadline));
        auto reply = http_post(
            host, port, "/generate",
            {{"text", "hello there"}, {"stream", true}, {"sampling_params", {{"max_new_tokens", 3}}}});
        ASSERT_TRUE(reply);
        const auto events = events_of(reply->body);
        ASSERT_EQ(events.size(), 4u) << reply->body;
        EXPECT_EQ(events.back(), "[DONE]");
        std::string whole;
        for (int n = 1; n <= 3; ++n) {
            const std::string& raw = events[static_cast<std::size_t>(n - 1)];
            // SGLang's field order: text, output_ids, then meta_info.
            EXPECT_LT(raw.find("\"text\":"), raw.find("\"output_ids\":")) << raw;
            EXPECT_LT(raw.find("\"output_ids\":"), raw.find("\"meta_info\":")) << raw;
            EXPECT_LT(raw.find("\"completion_tokens\":"), raw.find("\"cached_tokens\":")) << raw;
            const json event = json::parse(raw);
            EXPECT_EQ(event["meta_info"]["completion_tokens"], n);
            EXPECT_EQ(event["meta_info"]["prompt_tokens"], 2);
            EXPECT_EQ(event["meta_info"]["finish_reason"].is_null(), n < 3);
            const std::string text = event["text"];
            if (incremental) {
                EXPECT_EQ(event["output_ids"].size(), 1u);
                whole += text;
            } else {
                EXPECT_EQ(event["output_ids"].size(), static_cast<std::size_t>(n));
                EXPECT_EQ(text.substr(0, whole.size()), whole);  // it extends the last one
                whole = text;
            }
        }
        EXPECT_EQ(std::count(whole.begin(), whole.end(), ' '), 2) << whole;
    }
}

}  // namespace

namespace pdctl::testing {
namespace {

using nlohmann::json;

TEST(SimPdPrefixCache, TheDecodesAnswerReportsThePrefillsCacheHitsThroughTheRouter) {
    SimCluster cluster("pdcache", 162);
    // 100 tokens/s per GPU × 32: 1600 tokens take 500 ms uncached.
    cluster.append("prefill.env", "PDSIM_PREFILL_TOKENS_PER_S=100\n");
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const std::string router = cluster.address(5);
    json ids = json::array();
    for (int i = 0; i < 1600; ++i) ids.push_back(5000 + i);
    const json body = {{"input_ids", ids}, {"sampling_params", {{"max_new_tokens", 1}}}};
    auto timed = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        auto reply = pdsim_test::http_post(router, 31000, "/generate", body);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return std::make_pair(reply && reply->status == 200 ? reply->json() : json(), ms);
    };
    const auto [first, first_ms] = timed();
    const auto [second, second_ms] = timed();
    ASSERT_TRUE(first.is_object());
    ASSERT_TRUE(second.is_object());
    EXPECT_EQ(first["meta_info"]["cached_tokens"], 0);
    EXPECT_EQ(second["meta_info"]["cached_tokens"], 1599);
    EXPECT_LT(second_ms, first_ms - 500 * 0.8) << first_ms << " ms then " << second_ms << " ms";

    auto metrics = pdsim_test::http_get(cluster.address(1), 30000, "/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_NE(metrics->body.find("sglang:cached_tokens_total{"), std::string::npos);
    EXPECT_NE(metrics->body.find("# TYPE sglang:kv_transfer_latency_ms histogram"), std::string::npos);

    // The MiniLB forwards /flush_cache to every worker and answers 200 with no body.
    auto flushed = pdsim_test::http_post(router, 31000, "/flush_cache", json::object());
    ASSERT_TRUE(flushed);
    EXPECT_EQ(flushed->status, 200);
    const auto [third, third_ms] = timed();
    EXPECT_EQ(third["meta_info"]["cached_tokens"], 0);
}

TEST(BenchSoak, TransfersThatFailOnceAndPassOnRetryFailTheSoakThoughEveryRequestPasses) {
    SimCluster cluster("retrysoak", 161);
    cluster.append("decode.env", "PDSIM_KV_FAULT=retry\n");
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;

    const auto soak =
        cluster.run({"--json", "bench", "--soak", "5s", "--warmup", "0"}, std::chrono::seconds(120));
    EXPECT_EQ(soak.exit_code, 15) << soak.out << soak.err;
    const json report = json::parse(soak.out, nullptr, false);
    ASSERT_TRUE(report.is_object()) << soak.out;
    int requests = 0;
    for (const auto& row : report["rows"]) {
        for (const auto& level : row["levels"]) {
            EXPECT_EQ(level["failed"], 0) << level.dump();
            requests += level["ok"].get<int>();
        }
    }
    EXPECT_GT(requests, 0) << report.dump();
    bool rose = false;
    for (const auto& group : report["kv"]) {
        if (group["role"] != "decode") continue;
        rose = rose || group["transfer_failed"]["after"].get<double>() >
                           group["transfer_failed"]["before"].get<double>();
    }
    EXPECT_TRUE(rose) << report["kv"].dump();

    const auto text = cluster.run({"bench", "--soak", "2s", "--warmup", "0"}, std::chrono::seconds(60));
    EXPECT_EQ(text.exit_code, 15) << text.out;
    EXPECT_NE(text.out.find("sglang:num_transfer_failed_reqs_total rose by "), std::string::npos) << text.out;
}

}  // namespace
}  // namespace pdctl::testing
