#include "pdctl/health/generate_answer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace pdctl::health {
namespace {

TEST(GenerateAnswer, TextOfA200IsThePass) {
    const auto answer = read_generate_answer(200, R"({"text": " Paris.", "meta_info": {"id": "1"}})");
    EXPECT_EQ(answer.text, " Paris.");
    EXPECT_EQ(answer.error, "");
}

TEST(GenerateAnswer, NoTextOrNotJsonFails) {
    EXPECT_EQ(read_generate_answer(200, R"({"text": ""})").error, R"(the answer has no text: {"text": ""})");
    EXPECT_EQ(read_generate_answer(200, R"({"text": 42})").error, R"(the answer has no text: {"text": 42})");
    EXPECT_EQ(read_generate_answer(200, "[1, 2]").error, "the answer has no text: [1, 2]");
    EXPECT_EQ(read_generate_answer(200, "not json {").error, "the answer has no text: not json {");
}

TEST(GenerateAnswer, HttpErrorKeepsTheBodyBounded) {
    const auto answer = read_generate_answer(503, std::string(1000, 'x'));
    EXPECT_EQ(answer.error, "HTTP 503: " + std::string(300, 'x'));
}

}  // namespace
}  // namespace pdctl::health
