#include "pdctl/config/bench_file.hpp"

#include <gtest/gtest.h>

#include "pdctl/config/diagnostics.hpp"

namespace pdctl::config {
namespace {

BenchFile load_text(const std::string& text) {
    return load_bench_file("traffic.yaml", MemoryFileSource({{"traffic.yaml", text}}));
}

std::vector<std::string> errors_of(const std::string& text) {
    try {
        load_text(text);
    } catch (const ConfigError& e) {
        std::vector<std::string> errors;
        for (const auto& diagnostic : e.diagnostics())
            errors.push_back(std::to_string(diagnostic.where.line) + ": " + diagnostic.key_path + ": " +
                             diagnostic.message);
        return errors;
    }
    return {};
}

TEST(BenchFile, RowsAndLevelsAsWritten) {
    const auto bench = load_text(
        "rows:\n"
        "  - {name: chat, input: 512, output: 256}\n"
        "  - {input: 6000, output: 200}\n"
        "concurrency: [1, 8]\n"
        "requests: 64\n"
        "warmup: 0\n");
    EXPECT_EQ(bench.name, "traffic");
    ASSERT_EQ(bench.rows.size(), 2u);
    EXPECT_EQ(bench.rows[0].name, "chat");
    EXPECT_EQ(bench.rows[1].name, "6000/200");
    EXPECT_EQ(bench.rows[1].where.line, 3);
    EXPECT_EQ(bench.concurrency, (std::vector<int>{1, 8}));
    EXPECT_EQ(bench.requests, 64);
    EXPECT_EQ(bench.warmup, 0);
}

TEST(BenchFile, EveryMistakeIsNamedWithItsLine) {
    EXPECT_EQ(
        errors_of("rows:\n"
                  "  - {name: a, input: 0, output: 8, extra: 1}\n"
                  "  - {name: b, input: 10}\n"
                  "concurrency: [2, many]\n"
                  "requests: 4\n"
                  "duration: 1m\n"),
        (std::vector<std::string>{
            "2: rows[0].extra: unknown key", "2: rows[0].input: must be between 1 and 10000000, got 0",
            "3: rows[1]: missing required key `output`", "4: concurrency[1]: expected an integer, got `many`",
            "6: duration: requests and duration both end a level"}));
    EXPECT_EQ(errors_of("rows:\n  - {name: a, input: 1, output: 1}\n  - {name: a, input: 2, output: 2}\n"),
              std::vector<std::string>{"3: rows[1].name: row `a` is named twice"});
    EXPECT_EQ(errors_of("concurrency: 4\n"), std::vector<std::string>{"1: : missing required key `rows`"});
}

}  // namespace
}  // namespace pdctl::config
