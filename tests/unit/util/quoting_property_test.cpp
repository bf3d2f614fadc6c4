// Property test of the one quoting function: tens of thousands of hostile strings go through
// util::join_command into /bin/sh -c (the command line sshd hands a node's shell, run here by the
// LocalExecutor) and into bash -c, and come back byte for byte; none of the canary commands they carry
// ever runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "pdctl/exec/local_executor.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "unit/support/hostile_strings.hpp"

namespace pdctl::util {
namespace {

using pdctl::testing::HostileStrings;

constexpr std::size_t kWordsPerCommand = 250;  // well under the kernel's 128 KiB per-argument limit

class QuotingProperty : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() / ("pdctl-quoting-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        canary_ = (dir_ / "CANARY").string();
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    // Sends `words` as arguments of `prefix`, joined into one command line for `sh -c` as sshd runs a
    // command, and returns what the shell handed to printf.
    std::vector<std::string> echo_back(const std::vector<std::string>& prefix,
                                       const std::vector<std::string>& words) {
        std::vector<std::string> argv = prefix;
        argv.insert(argv.end(), words.begin(), words.end());
        exec::Command command;
        command.argv = {"sh", "-c", join_command(argv)};
        command.timeout = std::chrono::seconds(20);
        const auto result = executor_.run(config::Node{}, command);
        EXPECT_TRUE(result.ok()) << "exit " << result.exit_code << ": " << result.err;
        return pdctl::testing::split_nul(result.out);
    }

    static void expect_same(const std::vector<std::string>& sent, const std::vector<std::string>& seen,
                            const char* via, std::uint64_t seed) {
        ASSERT_EQ(seen.size(), sent.size()) << via << ", seed " << seed;
        for (std::size_t i = 0; i < sent.size(); ++i)
            ASSERT_EQ(seen[i], sent[i])
                << via << ", seed " << seed << ", word " << i << ": sent " << pdctl::testing::hex(sent[i])
                << ", got " << pdctl::testing::hex(seen[i]);
    }

    exec::LocalExecutor executor_;
    std::filesystem::path dir_;
    std::string canary_;
};

TEST_F(QuotingProperty, RandomStringsReachShAndBashByteForByte) {
    const auto seed = pdctl::testing::quoting_seed(20260519);
    const int cases = pdctl::testing::quoting_cases(20000);
    std::printf("[ quoting ] seed %llu (PDCTL_QUOTING_SEED), %d strings per shell (PDCTL_QUOTING_CASES)\n",
                static_cast<unsigned long long>(seed), cases);
    HostileStrings strings(seed, canary_);
    const auto started = std::chrono::steady_clock::now();
    for (int done = 0; done < cases; done += static_cast<int>(kWordsPerCommand)) {
        const auto words = strings.batch(std::min<std::size_t>(kWordsPerCommand, cases - done));
        // argv straight to a program, as most of pdctl's commands are.
        expect_same(words, echo_back({"printf", "%s\\0"}, words), "argv via /bin/sh -c", seed);
        // argv as positional parameters of a fixed script, as the runtime scripts take every value.
        expect_same(words, echo_back({"bash", "-c", "printf '%s\\0' \"$@\"", "pdctl-test"}, words),
                    "positional parameters of bash -c", seed);
        expect_same(words,
                    echo_back({"sh", "-c", "for a; do printf '%s\\0' \"$a\"; done", "pdctl-test"}, words),
                    "positional parameters of sh -c", seed);
        ASSERT_FALSE(std::filesystem::exists(canary_)) << "an injected command ran, seed " << seed;
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    std::printf("[ quoting ] %d strings x 3 shells in %lld ms\n", cases, static_cast<long long>(ms.count()));
}

// A whole script built from hostile strings, passed as one word to `bash -c` (as launch_argv passes
// BOOTSTRAP): the word arrives intact, so printf prints it back.
TEST_F(QuotingProperty, AWholeCommandLineAsOneWordSurvivesNesting) {
    const auto seed = pdctl::testing::quoting_seed(77);
    HostileStrings strings(seed, canary_);
    for (int round = 0; round < 200; ++round) {
        const auto words = strings.batch(20);
        const std::string inner = join_command([&] {
            std::vector<std::string> argv = {"printf", "%s\\0"};
            argv.insert(argv.end(), words.begin(), words.end());
            return argv;
        }());
        expect_same(words, echo_back({"bash", "-c", inner}, {}), "nested bash -c", seed);
    }
    EXPECT_FALSE(std::filesystem::exists(canary_));
}

// Regression: a bare first word that looks like an assignment (`A=b`) is an assignment to the shell, not
// the command `A=b`; an unquoted reserved word (`if`) is syntax; zsh expands a leading `=`. The first word
// must name the program, so join_command quotes it in all three cases.
TEST(JoinCommand, FirstWordIsAlwaysTheCommandName) {
    EXPECT_EQ(join_command({"A=b", "x"}), "'A=b' x");
    EXPECT_EQ(join_command({"if"}), "'if'");
    EXPECT_EQ(join_command({"=ls"}), "'=ls'");
    EXPECT_EQ(join_command({"printf", "A=b", "if"}), "printf A=b if");  // later words are plain arguments

    exec::LocalExecutor executor;
    for (const std::string word : {"PDCTL_QUOTING_X=1", "if", "then", "{", "!", "case", "function"}) {
        exec::Command command{{"sh", "-c", join_command({word, "arg"})}, {}, std::chrono::seconds(10)};
        const auto result = executor.run(config::Node{}, command);
        EXPECT_EQ(result.exit_code, 127) << "`" << word << "` was not run as a command: " << result.err;
    }
}

}  // namespace
}  // namespace pdctl::util
