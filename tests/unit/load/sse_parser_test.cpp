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

TEST(SseParser, AnEventWithinOnePieceIsHandedOutAsAViewIntoIt) {
    SseParser parser;
    const std::string piece = "data: {\"a\":1}\n\ndata: [DONE]\n\n";
    std::vector<std::string_view> seen;
    parser.feed(piece, [&](std::string_view data) { seen.push_back(data); });
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], "{\"a\":1}");
    EXPECT_EQ(seen[0].data(), piece.data() + 6);  // not copied
}

// SGLang's default streaming: an event of tens of KiB that the socket gives in many reads.
TEST(SseParser, ALongEventInManySmallPiecesComesOutOnceAndWhole) {
    const std::string data = "{\"text\":\"" + std::string(40000, 'x') + "\",\"meta_info\":{}}";
    const std::string stream = "data: " + data + "\n\ndata: [DONE]\n\n";
    for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{16384}}) {
        SseParser parser;
        Events events;
        for (std::size_t at = 0; at < stream.size(); at += piece) {
            parser.feed(std::string_view(stream).substr(at, piece),
                        [&](std::string_view event) { events.emplace_back(event); });
        }
        ASSERT_EQ(events.size(), 2u) << "pieces of " << piece;
        EXPECT_EQ(events[0], data) << "pieces of " << piece;
        EXPECT_EQ(events[1], "[DONE]");
    }
}

TEST(SseParser, AnEventWhoseBlankLineComesInTheNextPieceOutlivesItsOwnPiece) {
    SseParser parser;
    std::string piece = "data: first\r\n";
    EXPECT_EQ(parser.feed(piece), Events{});
    piece.assign(piece.size(), '#');  // the caller's buffer is reused for the next read
    EXPECT_EQ(parser.feed("\r\ndata: second\n"), Events{"first"});
    EXPECT_EQ(parser.feed("data: third\n\n"), Events{"second\nthird"});
}

TEST(SseParser, WhatIsKeptForTheErrorMessageStopsAt4KiB) {
    SseParser parser;
    parser.feed("data: " + std::string(10000, 'y'));
    EXPECT_EQ(parser.unfinished().size(), 4096u);
    parser.feed("\n");
    parser.feed(std::string(10000, 'z'));
    const std::string said = parser.unfinished();
    EXPECT_EQ(said.size(), 4096u);
    EXPECT_EQ(said.substr(0, 6), "data: ");
}

}  // namespace
}  // namespace pdctl::load
