#include "pdctl/load/stream_tally.hpp"

#include <gtest/gtest.h>

namespace pdctl::load {
namespace {

using std::chrono::milliseconds;

const util::SteadyClock::time_point kSent{};
util::SteadyClock::time_point kSentTime() {
    return kSent;
}

std::string chunk(int tokens, const std::string& text = "t") {
    return "data: {\"text\":\"" + text + "\",\"meta_info\":{\"completion_tokens\":" + std::to_string(tokens) +
           "}}\n\n";
}

TEST(StreamTally, TimesTheFirstTokenEveryGapAndTheEnd) {
    StreamTally tally(kSent, 100, 3);
    tally.on_bytes(chunk(1), kSent + milliseconds(50));
    tally.on_bytes(chunk(2), kSent + milliseconds(60));
    tally.on_bytes(chunk(3) + "data: [DONE]\n\n", kSent + milliseconds(75));
    const auto record = tally.finish(200, "", kSent + milliseconds(76));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_DOUBLE_EQ(record.ttft_s, 0.050);
    ASSERT_EQ(record.itl_s.size(), 2u);
    EXPECT_NEAR(record.itl_s[0], 0.010, 1e-9);
    EXPECT_NEAR(record.itl_s[1], 0.015, 1e-9);
    EXPECT_DOUBLE_EQ(record.e2e_s, 0.076);
    EXPECT_EQ(record.output_tokens, 3);
    EXPECT_EQ(record.input_tokens, 100);
    EXPECT_NEAR(record.tpot_s(), (0.076 - 0.050) / 2, 1e-12);
}

TEST(StreamTally, AChunkOfSeveralTokensCountsAsThatManyEqualGaps) {
    StreamTally tally(kSent, 1, 4);
    tally.on_bytes(chunk(1), kSent + milliseconds(10));
    tally.on_bytes(chunk(4) + "data: [DONE]\n\n", kSent + milliseconds(40));
    const auto record = tally.finish(200, "", kSent + milliseconds(40));
    EXPECT_EQ(record.itl_s, (std::vector<double>{0.010, 0.010, 0.010}));
}

TEST(StreamTally, AnErrorEventAfterThe200FailsTheRequestWithItsMessage) {
    StreamTally tally(kSent, 5280, 256);
    tally.on_bytes(
        "data: {\"error\":{\"message\":\"KV transfer failed (bootstrap_room=42): NIXL\"}}\n\ndata: "
        "[DONE]\n\n",
        kSent + milliseconds(5));
    EXPECT_EQ(tally.finish(200, "", kSent + milliseconds(5)).error,
              "KV transfer failed (bootstrap_room=42): NIXL");
}

TEST(StreamTally, AStreamCutShortSaysHowFarItGot) {
    StreamTally tally(kSent, 10, 8);
    tally.on_bytes(chunk(1) + chunk(2), kSent + milliseconds(5));
    EXPECT_EQ(tally.finish(200, "", kSent + milliseconds(6)).error,
              "the stream ended without [DONE] after 2 of 8 tokens");
    StreamTally reset(kSent, 10, 8);
    reset.on_bytes(chunk(1), kSent + milliseconds(5));
    EXPECT_EQ(reset.finish(0, "Recv failure: Connection reset by peer", kSent + milliseconds(6)).error,
              "Recv failure: Connection reset by peer (after 1 of 8 tokens)");
}

TEST(StreamTally, ANon200AnswerIsNamedWithItsStatusAndMessage) {
    StreamTally tally(kSent, 10, 8);
    tally.on_bytes("{\"error\":\"No available decode workers (all circuits open or unhealthy)\"}", kSent);
    EXPECT_EQ(tally.finish(503, "", kSent).error,
              "HTTP 503: No available decode workers (all circuits open or unhealthy)");
}

TEST(StreamTally, FewerTokensThanAskedForWithIgnoreEosIsAFailure) {
    StreamTally tally(kSent, 10, 8);
    tally.on_bytes(chunk(5) + "data: [DONE]\n\n", kSent + milliseconds(5));
    EXPECT_EQ(tally.finish(200, "", kSent + milliseconds(6)).error,
              "the answer had 5 of the 8 tokens asked for (ignore_eos)");
}

TEST(ErrorGroup, MasksTheRequestsOwnNumbersButKeepsPortsAndSizes) {
    EXPECT_EQ(
        error_group("KV transfer timed out (bootstrap_room=6488519777038135101, bootstrap 127.0.201.1:8998)"),
        "KV transfer timed out (bootstrap_room=N, bootstrap 127.0.201.1:8998)");
    EXPECT_EQ(error_group("transfer of 70.3 MB failed"), "transfer of 70.3 MB failed");
}

}  // namespace
}  // namespace pdctl::load

namespace pdctl::load {
namespace {

TEST(StreamTally, ANonStreamedAnswerIsReadWholeItsTtftIsTheRequest) {
    StreamTally tally(kSentTime(), 16, 1, false);
    tally.on_bytes(R"({"text":"x","meta_info":)", kSentTime() + std::chrono::milliseconds(3));
    tally.on_bytes(R"({"completion_tokens":1}})", kSentTime() + std::chrono::milliseconds(4));
    const auto record = tally.finish(200, "", kSentTime() + std::chrono::milliseconds(4));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_DOUBLE_EQ(record.ttft_s, 0.004);
    EXPECT_EQ(record.output_tokens, 1);
    StreamTally refused(kSentTime(), 16, 1, false);
    refused.on_bytes(R"({"error":{"message":"no decode"}})", kSentTime());
    EXPECT_EQ(refused.finish(503, "", kSentTime()).error, "HTTP 503: no decode");
}

}  // namespace
}  // namespace pdctl::load

namespace pdctl::load {
namespace {

// SGLang's default (cumulative) streaming: every event has the whole text and every output id so far,
// then meta_info. Texts that quote the very keys the tally looks for must not fool it.
std::string cumulative_event(int tokens, std::string& text, std::string& ids) {
    static const char* const kWords[] = {" the", R"( \"completion_tokens\":9999)", R"( \"meta_info\":{)",
                                         "\\n", R"( \\)"};
    text += kWords[tokens % 5];
    ids += (tokens > 1 ? "," : "") + std::to_string(20000 + tokens);
    return R"(data: {"text":")" + text + R"(","output_ids":[)" + ids +
           R"(],"meta_info":{"id":"ab","finish_reason":null,"prompt_tokens":5280,"weight_version":"default",)"
           R"("num_retractions":0,"reasoning_tokens":0,"completion_tokens":)" +
           std::to_string(tokens) + R"(,"cached_tokens":1680}})" + "\n\n";
}

TEST(StreamTally, SGLangsCumulativeChunksAreCountedByTheirMetaInfoWhateverTheTextSays) {
    constexpr int kTokens = 3000;  // the last events are tens of KiB
    StreamTally tally(kSentTime(), 5280, kTokens);
    std::string text, ids, stream;
    for (int n = 1; n <= kTokens; ++n) {
        const std::string event = cumulative_event(n, text, ids);
        // Long events in the pieces libcurl hands over (at most 16 KiB), short ones whole.
        for (std::size_t at = 0; at < event.size(); at += 16384)
            tally.on_bytes(std::string_view(event).substr(at, 16384),
                           kSentTime() + std::chrono::milliseconds(n));
    }
    tally.on_bytes("data: [DONE]\n\n", kSentTime() + std::chrono::milliseconds(kTokens));
    const auto record = tally.finish(200, "", kSentTime() + std::chrono::milliseconds(kTokens + 1));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_EQ(record.output_tokens, kTokens);
    EXPECT_EQ(record.itl_s.size(), static_cast<std::size_t>(kTokens - 1));
    EXPECT_DOUBLE_EQ(record.ttft_s, 0.001);
    EXPECT_EQ(record.prompt_tokens, 5280);
    EXPECT_EQ(record.cached_tokens, 1680);
}

TEST(StreamTally, IncrementalChunksAreCountedTheSameWay) {
    StreamTally tally(kSentTime(), 16, 3);
    for (int n = 1; n <= 3; ++n) {
        std::string text, ids;
        tally.on_bytes(cumulative_event(n, text, ids), kSentTime() + std::chrono::milliseconds(10 * n));
    }
    tally.on_bytes("data: [DONE]\n\n", kSentTime() + std::chrono::milliseconds(30));
    const auto record = tally.finish(200, "", kSentTime() + std::chrono::milliseconds(30));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_EQ(record.itl_s, (std::vector<double>{0.010, 0.010}));
}

TEST(StreamTally, WhatTheServerSaidOfThePromptIsMinusOneWhenItSaidNothing) {
    StreamTally tally(kSent, 100, 1);
    tally.on_bytes(chunk(1) + "data: [DONE]\n\n", kSent + milliseconds(5));
    const auto record = tally.finish(200, "", kSent + milliseconds(5));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_EQ(record.prompt_tokens, -1);
    EXPECT_EQ(record.cached_tokens, -1);
}

TEST(StreamTally, ALongEventWithoutACountIsOneTokenAndOneThatIsNoObjectIsAnError) {
    StreamTally tally(kSent, 1, 2);
    const std::string long_text(10000, 'q');
    tally.on_bytes("data: {\"text\":\"" + long_text + "\"}\n\n", kSent + milliseconds(1));
    tally.on_bytes("data: {\"text\":\"" + long_text + long_text + "\"}\n\ndata: [DONE]\n\n",
                   kSent + milliseconds(3));
    const auto record = tally.finish(200, "", kSent + milliseconds(3));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_EQ(record.output_tokens, 2);
    StreamTally broken(kSent, 1, 2);
    broken.on_bytes("data: <html>" + long_text + "</html>\n\n", kSent);
    EXPECT_EQ(
        broken.finish(200, "", kSent).error.rfind("the stream sent an event that is not JSON: <html>qqq", 0),
        0u);
}

TEST(StreamTally, SmallEventsMetaInfoCannotBeReadFromAreStillParsedWhole) {
    StreamTally tally(kSent, 1, 2);
    tally.on_bytes("data: {\"meta_info\":{\"completion_tokens\":null}}\n\n", kSent + milliseconds(1));
    tally.on_bytes("data: {\"text\":\"x\"}\n\ndata: [DONE]\n\n", kSent + milliseconds(2));
    EXPECT_TRUE(tally.finish(200, "", kSent + milliseconds(2)).ok());
    StreamTally broken(kSent, 1, 2);
    broken.on_bytes("data: {\"meta_info\":{\"completion_tokens\":1\n\n", kSent);  // cut short
    EXPECT_EQ(broken.finish(200, "", kSent).error,
              "the stream sent an event that is not JSON: {\"meta_info\":{\"completion_tokens\":1");
}

TEST(StreamTally, ANonStreamedAnswerSaysWhatTheServerCountedOfThePrompt) {
    StreamTally tally(kSent, 0, 2, false);
    tally.on_bytes(R"({"text":"ab","output_ids":[1,2],"meta_info":{"prompt_tokens":77,"completion_tokens":2,)"
                   R"("cached_tokens":64}})",
                   kSent + milliseconds(9));
    const auto record = tally.finish(200, "", kSent + milliseconds(9));
    EXPECT_TRUE(record.ok()) << record.error;
    EXPECT_EQ(record.output_tokens, 2);
    EXPECT_EQ(record.prompt_tokens, 77);
    EXPECT_EQ(record.cached_tokens, 64);
}

}  // namespace
}  // namespace pdctl::load
