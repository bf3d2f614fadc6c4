#include "pdctl/load/stream_tally.hpp"

#include <gtest/gtest.h>

namespace pdctl::load {
namespace {

using std::chrono::milliseconds;

const Clock::time_point kSent{};
Clock::time_point kSentTime() {
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
