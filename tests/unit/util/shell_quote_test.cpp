#include "pdctl/util/shell_quote.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/local_executor.hpp"

namespace pdctl::util {
namespace {

TEST(ShellQuote, SafeWordsStayBare) {
    EXPECT_EQ(shell_quote("--tp-size"), "--tp-size");
    EXPECT_EQ(shell_quote("174.1.60.1:5000"), "174.1.60.1:5000");
    EXPECT_EQ(shell_quote("NCCL_IB_HCA=mlx5_0,mlx5_1"), "NCCL_IB_HCA=mlx5_0,mlx5_1");
}

TEST(ShellQuote, EverythingElseIsSingleQuoted) {
    EXPECT_EQ(shell_quote(""), "''");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("$(reboot)"), "'$(reboot)'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
    EXPECT_EQ(shell_quote("a\nb"), "'a\nb'");
}

TEST(ShellQuote, JoinQuotesEveryWord) {
    EXPECT_EQ(join_command({"echo", "a b", "c;d"}), "echo 'a b' 'c;d'");
}

// Runs `printf '%s\0' <quoted words>` through bash -c and returns the words bash saw.
std::vector<std::string> round_trip(const std::vector<std::string>& words) {
    std::vector<std::string> argv = {"printf", "%s\\0"};
    argv.insert(argv.end(), words.begin(), words.end());
    const std::string script = join_command(argv);
    // The script itself is passed to bash -c as one quoted word, exactly as the executors do.
    const std::string command = "bash -c " + shell_quote(script);
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    ::pclose(pipe);
    std::vector<std::string> seen;
    std::string current;
    for (char c : out) {
        if (c == '\0') {
            seen.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    return seen;
}

TEST(ShellQuote, RandomStringsSurviveBashUnchanged) {
    std::mt19937 rng(20261129);
    // Every byte but NUL (which no argv can hold), weighted towards shell metacharacters.
    const std::string nasty = "'\"`$\\!*?[]{}();&|<>~#% \t\n=,:-";
    std::uniform_int_distribution<int> length(0, 24);
    std::uniform_int_distribution<int> pick(0, 3);
    std::uniform_int_distribution<int> any_byte(1, 255);
    std::uniform_int_distribution<std::size_t> nasty_index(0, nasty.size() - 1);
    for (int round = 0; round < 40; ++round) {
        std::vector<std::string> words;
        for (int w = 0; w < 8; ++w) {
            std::string word;
            const int len = length(rng);
            for (int i = 0; i < len; ++i)
                word += pick(rng) == 0 ? static_cast<char>(any_byte(rng)) : nasty[nasty_index(rng)];
            words.push_back(word);
        }
        ASSERT_EQ(round_trip(words), words) << "round " << round;
    }
}

TEST(ShellQuote, LocalExecutorRunsArgvVerbatim) {
    exec::LocalExecutor executor;
    config::Node node{"n1", "127.0.0.1", {}, {}, {}};
    exec::Command command;
    command.argv = {"printf", "%s|", "a b", "$HOME", "'quoted'", "x;y"};
    const auto result = executor.run(node, command);
    ASSERT_TRUE(result.ok()) << result.err;
    EXPECT_EQ(result.out, "a b|$HOME|'quoted'|x;y|");
}

}  // namespace
}  // namespace pdctl::util
