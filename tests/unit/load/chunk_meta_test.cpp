#include "pdctl/load/chunk_meta.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pdctl::load {
namespace {

// A chunk as SGLang's default streaming writes it: the whole text and every output id so far, then
// meta_info (orjson's compact form, SGLang's key order).
std::string cumulative_chunk(const std::string& text_json, int tokens, int cached = 0) {
    std::string ids;
    for (int n = 1; n <= tokens; ++n) ids += (n > 1 ? "," : "") + std::to_string(1000 + n);
    return R"({"text":")" + text_json + R"(","output_ids":[)" + ids +
           R"(],"meta_info":{"id":"0f3a","finish_reason":null,"prompt_tokens":5280,"weight_version":"default",)"
           R"("num_retractions":0,"reasoning_tokens":0,"completion_tokens":)" +
           std::to_string(tokens) + R"(,"cached_tokens":)" + std::to_string(cached) + "}}";
}

TEST(ChunkMeta, ReadsTheCountsOfSGLangsCumulativeChunk) {
    const auto meta = read_chunk_meta(cumulative_chunk(std::string(20000, 'w'), 2048, 1680));
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->completion_tokens, 2048);
    EXPECT_EQ(meta->prompt_tokens, 5280);
    EXPECT_EQ(meta->cached_tokens, 1680);
}

// The text is JSON-escaped: a quote in it is \" and a backslash \\, so keys quoted by the text (or a
// text that ends in a backslash) are never read as meta_info's.
TEST(ChunkMeta, KeysQuotedInsideTheTextAreNotTakenForTheRealOnes) {
    const std::string texts[] = {
        R"(see \"meta_info\":{\"completion_tokens\":999,\"prompt_tokens\":1})",
        R"(\"completion_tokens\":999)",
        R"(a backslash at the end \\)",
        R"(\\\"meta_info\\\":{\\\"completion_tokens\\\":7}\\)",
        std::string(5000, 'x') + R"(\"meta_info\":{\"completion_tokens\":999})" + std::string(5000, 'x'),
    };
    for (const auto& text : texts) {
        const auto meta = read_chunk_meta(cumulative_chunk(text, 3));
        ASSERT_TRUE(meta) << text;
        EXPECT_EQ(meta->completion_tokens, 3) << text;
        EXPECT_EQ(meta->prompt_tokens, 5280) << text;
    }
    // Only the text says it: no meta_info at all.
    EXPECT_FALSE(read_chunk_meta(R"({"text":"\"meta_info\":{\"completion_tokens\":9}"})"));
    EXPECT_FALSE(read_chunk_meta(R"({"text":"x \"meta_info\": {}"})"));
}

// A proxy that re-serializes with sorted keys puts meta_info first, before a long text.
TEST(ChunkMeta, MetaInfoBeforeALongTextIsFoundToo) {
    const std::string chunk = R"({"meta_info":{"cached_tokens":0,"completion_tokens":12,"prompt_tokens":16},)"
                              R"("output_ids":[1,2],"text":")" +
                              std::string(9000, 'z') + R"("})";
    const auto meta = read_chunk_meta(chunk);
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->completion_tokens, 12);
    // And in the middle, past both ends' windows.
    const std::string middle = R"({"text":")" + std::string(9000, 'a') +
                               R"(","meta_info":{"completion_tokens":4},"output_ids":")" +
                               std::string(9000, 'b') + R"("})";
    ASSERT_TRUE(read_chunk_meta(middle));
    EXPECT_EQ(read_chunk_meta(middle)->completion_tokens, 4);
}

TEST(ChunkMeta, OtherEntriesOfMetaInfoAreSkippedWhateverTheirShape) {
    const auto meta = read_chunk_meta(
        R"({ "text" : "x", "meta_info" : { "finish_reason" : {"type":"length","length":4,"why":"a}\"]"},)"
        "\n"
        R"( "e2e_latency" : 1.5e-2, "hidden_states" : [[1,2],[3]], "cached_tokens_details": {"device": 3},)"
        R"( "ok": true, "none": null, "completion_tokens" : 4 } })");
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->completion_tokens, 4);
    EXPECT_EQ(meta->prompt_tokens, -1);
    EXPECT_EQ(meta->cached_tokens, -1);
}

TEST(ChunkMeta, CountsThatAreNotIntegersAreNotRead) {
    const auto meta =
        read_chunk_meta(R"({"meta_info":{"completion_tokens":1.5,"prompt_tokens":"16","cached_tokens":-1}})");
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->completion_tokens, -1);
    EXPECT_EQ(meta->prompt_tokens, -1);
    EXPECT_EQ(meta->cached_tokens, -1);
    EXPECT_EQ(read_chunk_meta(R"({"meta_info":{"completion_tokens":12345678901}})")->completion_tokens, -1);
}

TEST(ChunkMeta, AMetaInfoThatIsNoObjectOrIsCutShortIsNotRead) {
    EXPECT_FALSE(read_chunk_meta(R"({"meta_info":null})"));
    EXPECT_FALSE(read_chunk_meta(R"({"meta_info":{"completion_tokens":3,)"));
    EXPECT_FALSE(read_chunk_meta(R"({"meta_info":{"completion_tokens" 3}})"));
    EXPECT_FALSE(read_chunk_meta("[DONE]"));
    EXPECT_FALSE(read_chunk_meta(""));
    EXPECT_TRUE(read_chunk_meta(R"({"meta_info":{}})"));
}

TEST(ChunkMeta, TheFirstKeyIsReadAtTheStartOnly) {
    EXPECT_TRUE(first_key_is(R"({"error":{"message":"x"}})", "error"));
    EXPECT_TRUE(first_key_is(" { \"error\" : \"x\"}", "error"));
    EXPECT_FALSE(first_key_is(R"({"text":"x","error":"y"})", "error"));
    EXPECT_FALSE(first_key_is(R"({"errors":1})", "error"));
    EXPECT_FALSE(first_key_is(R"("error")", "error"));
}

TEST(ChunkMeta, AKeyIsFoundFromTheEndNeverInsideAString) {
    const std::string json = R"({"a":"\"b\":1","b":2})";
    EXPECT_EQ(find_key_from_end(json, "b"), json.size() - 2);
    EXPECT_EQ(find_key_from_end(R"({"a":"\"b\":1"})", "b"), std::string_view::npos);
}

}  // namespace
}  // namespace pdctl::load
