#include "pdctl/config/shell_words.hpp"

#include <gtest/gtest.h>

namespace pdctl::config {
namespace {

using Words = std::vector<std::string>;

TEST(ConfigShellWords, SplitsOnBlanks) {
    EXPECT_EQ(split_shell_words("  --tp 32\t--ep 32\n--trust-remote-code ").words,
              (Words{"--tp", "32", "--ep", "32", "--trust-remote-code"}));
    EXPECT_TRUE(split_shell_words("").words.empty());
    EXPECT_TRUE(split_shell_words("   ").words.empty());
}

TEST(ConfigShellWords, QuotesKeepBlanksAndConcatenate) {
    EXPECT_EQ(split_shell_words(R"(--json '{"a": 1}' --name "x y" a'b'"c")").words,
              (Words{"--json", R"({"a": 1})", "--name", "x y", "abc"}));
}

TEST(ConfigShellWords, EmptyQuotesAreAnEmptyWord) {
    EXPECT_EQ(split_shell_words("--api-key '' x").words, (Words{"--api-key", "", "x"}));
}

TEST(ConfigShellWords, BackslashesFollowPosixRules) {
    EXPECT_EQ(split_shell_words(R"(a\ b \"q\" "\$x \n \"" '\n')").words,
              (Words{"a b", "\"q\"", "$x \\n \"", "\\n"}));
    EXPECT_EQ(split_shell_words("--a \\\n--b").words, (Words{"--a", "--b"}));
}

TEST(ConfigShellWords, NoExpansion) {
    EXPECT_EQ(split_shell_words("$HOME ${X} `date` *").words, (Words{"$HOME", "${X}", "`date`", "*"}));
}

TEST(ConfigShellWords, UnterminatedQuotesReportWhereTheyOpen) {
    const auto single = split_shell_words("--a 'b");
    EXPECT_EQ(single.error, "unterminated single quote");
    EXPECT_EQ(single.offset, 4u);
    const auto dq = split_shell_words("--a \"b");
    EXPECT_EQ(dq.error, "unterminated double quote");
    EXPECT_EQ(dq.offset, 4u);
}

}  // namespace
}  // namespace pdctl::config
