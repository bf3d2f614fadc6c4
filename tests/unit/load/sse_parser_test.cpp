#include "pdctl/load/sse_parser.hpp"

#include <gtest/gtest.h>

namespace pdctl::load {
namespace {

using Events = std::vector<std::string>;

TEST(SseParser, AnEventEndsAtABlankLineWhateverPiecesTheBytesCameIn) {
    SseParser parser;
    EXPECT_EQ(parser.feed("data: {\"a\""), Events{});
    EXPECT_EQ(parser.feed(":1}\n"), Events{});
    EXPECT_EQ(parser.feed("\ndata: [DO"), Events{"{\"a\":1}"});
    EXPECT_EQ(parser.feed("NE]\n\n"), Events{"[DONE]"});
}

TEST(SseParser, CarriageReturnsCommentsAndOtherFieldsAreNotData) {
    SseParser parser;
    EXPECT_EQ(parser.feed(": keep-alive\r\n\r\nevent: token\r\nid: 7\r\ndata: x\r\n\r\n"), Events{"x"});
}

TEST(SseParser, DataLinesOfOneEventJoinWithNewlines) {
    SseParser parser;
    EXPECT_EQ(parser.feed("data: one\ndata:two\n\n"), Events{"one\ntwo"});
}

TEST(SseParser, SeveralEventsInOnePieceComeOutInOrder) {
    SseParser parser;
    EXPECT_EQ(parser.feed("data: 1\n\ndata: 2\n\ndata: 3\n\n"), (Events{"1", "2", "3"}));
}

TEST(SseParser, WhatNoBlankLineEndedIsKeptForTheErrorMessage) {
    SseParser parser;
    parser.feed("data: 1\n\n");
    parser.feed("{\"error\":\"No available decode workers\"}");
    EXPECT_EQ(parser.unfinished(), "{\"error\":\"No available decode workers\"}");
}

}  // namespace
}  // namespace pdctl::load
