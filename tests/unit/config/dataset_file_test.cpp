#include "pdctl/config/dataset_file.hpp"

#include <gtest/gtest.h>

#include "pdctl/config/diagnostics.hpp"

namespace pdctl::config {
namespace {

DatasetFile load_dataset_text(const std::string& text, const DatasetFilter& filter = {}) {
    return load_dataset_file("prompts.jsonl", MemoryFileSource({{"prompts.jsonl", text}}), filter);
}

std::vector<std::string> dataset_errors_of(const std::string& text) {
    try {
        load_dataset_text(text);
    } catch (const ConfigError& e) {
        std::vector<std::string> errors;
        for (const auto& diagnostic : e.diagnostics())
            errors.push_back(diagnostic.where.file + ":" + std::to_string(diagnostic.where.line) + ": " +
                             diagnostic.key_path + ": " + diagnostic.message);
        return errors;
    }
    return {};
}

// A ShareGPT line: a human prompt of `prompt` and an answer of `answer`.
std::string sharegpt_line(const std::string& prompt, const std::string& answer) {
    return R"({"id": "x", "conversations": [{"from": "human", "value": ")" + prompt +
           R"("}, {"from": "gpt", "value": ")" + answer + R"("}]})";
}

TEST(EstimateTokens, FourAsciiCharactersOrOneOtherCharacterAToken) {
    EXPECT_EQ(estimate_tokens(""), 0);
    EXPECT_EQ(estimate_tokens("abcd"), 1);
    EXPECT_EQ(estimate_tokens("abcde"), 2);
    EXPECT_EQ(estimate_tokens("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"), 3);  // three CJK characters
    EXPECT_EQ(estimate_tokens("caf\xc3\xa9"), 2);                           // "caf" and "é"
}

TEST(DatasetFile, BothLayoutsInTheFilesOrder) {
    const std::string question(40, 'q');  // 10 tokens
    const std::string answer(80, 'a');    // 20 tokens
    const auto dataset = load_dataset_text(
        R"({"text": "Summarise this", "output_tokens": 64, "source": "mine"})"
        "\n\n" +
        sharegpt_line(question, answer) +
        "\r\n"
        R"({"text": "no length"})"
        "\n"
        R"({"conversation": [{"from": "system", "value": "be brief"}, {"from": "user", "value": ")" +
        question + R"("}, {"from": "assistant", "value": ")" + answer + R"("}]})");
    ASSERT_EQ(dataset.prompts.size(), 4u);
    EXPECT_EQ(dataset.prompts[0].text, "Summarise this");
    EXPECT_EQ(dataset.prompts[0].output_tokens, 64);
    EXPECT_EQ(dataset.prompts[0].where.line, 1);
    EXPECT_EQ(dataset.prompts[1].text, question);
    EXPECT_EQ(dataset.prompts[1].output_tokens, 20);
    EXPECT_EQ(dataset.prompts[1].estimated_prompt_tokens, 10);
    EXPECT_EQ(dataset.prompts[1].where.line, 3);
    EXPECT_EQ(dataset.prompts[2].output_tokens, 0);  // the row's
    EXPECT_EQ(dataset.prompts[3].text, question);    // the first human turn, after a system one
    EXPECT_EQ(dataset.prompts[3].where.line, 5);
}

TEST(DatasetFile, ConversationsAreFilteredAsBenchServingDidAndTextLinesNever) {
    const std::string ok(40, 'q');
    const auto dataset = load_dataset_text(
        sharegpt_line("hi", std::string(80, 'a')) + "\n" +                      // prompt 1 token
        sharegpt_line(ok, "ok") + "\n" +                                        // output 1 token
        sharegpt_line(std::string(4100, 'q'), std::string(40, 'a')) + "\n" +    // prompt 1025
        sharegpt_line(std::string(4000, 'q'), std::string(4400, 'a')) + "\n" +  // 1000 + 1100
        R"({"conversations": [{"from": "human", "value": "alone"}]})" + "\n" + R"({"conversations": []})" +
        "\n" + R"({"text": "hi", "output_tokens": 1})" + "\n" + sharegpt_line(ok, std::string(80, 'a')));
    EXPECT_EQ(dataset.dropped_too_short, 2);
    EXPECT_EQ(dataset.dropped_too_long, 2);
    EXPECT_EQ(dataset.dropped_no_answer, 2);
    ASSERT_EQ(dataset.prompts.size(), 2u);
    EXPECT_EQ(dataset.prompts[0].where.line, 7);
    EXPECT_EQ(dataset.prompts[1].where.line, 8);

    // A fixed output length stands for every answer, and lets a prompt without one through.
    DatasetFilter fixed;
    fixed.fixed_output_tokens = 100;
    const auto with_fixed =
        load_dataset_text(sharegpt_line(ok, "ok") + "\n" +
                              R"({"conversations": [{"from": "human", "value": "a prompt of its own"}]})" +
                              "\n" + R"({"text": "t", "output_tokens": 5})",
                          fixed);
    ASSERT_EQ(with_fixed.prompts.size(), 3u);
    for (const auto& prompt : with_fixed.prompts) EXPECT_EQ(prompt.output_tokens, 100);

    // Limits of 0 are off.
    DatasetFilter open;
    open.max_prompt_tokens = 0;
    open.max_total_tokens = 0;
    EXPECT_EQ(
        load_dataset_text(sharegpt_line(std::string(8000, 'q'), std::string(40, 'a')), open).prompts.size(),
        1u);
}

TEST(DatasetFile, EveryMistakeIsNamedWithItsLine) {
    EXPECT_EQ(
        dataset_errors_of(
            "{\"text\": \"fine\"}\n"
            "{\"text\": \"broken\n"
            "[1, 2]\n"
            "{\"prompt\": \"x\"}\n"
            "{\"text\": 5, \"output_tokens\": 0}\n"
            "{\"text\": \"\"}\n"
            "{\"text\": \"a\", \"conversations\": []}\n"
            "{\"conversations\": {\"from\": \"human\"}}\n"
            "{\"conversations\": [{\"from\": \"human\", \"value\": 3}, {\"value\": \"x\"}, \"turn\"]}\n"),
        (std::vector<std::string>{
            "prompts.jsonl:2: : invalid JSON: syntax error while parsing value - invalid string: missing "
            "closing quote; last read: '\"broken'",
            "prompts.jsonl:3: : expected a JSON object, got array",
            "prompts.jsonl:4: : expected a `text` or `conversations` key",
            "prompts.jsonl:5: output_tokens: must be an integer between 1 and 10000000, got 0",
            "prompts.jsonl:5: text: expected a string, got number",
            "prompts.jsonl:6: text: empty prompt",
            "prompts.jsonl:7: : `text` and `conversations` both given: one prompt a line",
            "prompts.jsonl:8: conversations: expected a list of turns, got object",
            "prompts.jsonl:9: conversations[0].value: expected a string, got number",
            "prompts.jsonl:9: conversations[1]: missing required key `from`",
            "prompts.jsonl:9: conversations[2]: expected {\"from\": ..., \"value\": ...}, got string",
        }));
}

TEST(DatasetFile, AFileOfMistakesNamesItsFirstTwentyLinesAndCountsTheRest) {
    std::string text;
    for (int i = 0; i < 25; ++i) text += "not json\n";
    const auto errors = dataset_errors_of(text);
    ASSERT_EQ(errors.size(), 21u);
    EXPECT_EQ(errors[19].substr(0, 17), "prompts.jsonl:20:");
    EXPECT_EQ(errors[20], "prompts.jsonl:0: : 5 more lines with mistakes");
}

TEST(DatasetFile, NothingToSendIsAnError) {
    EXPECT_EQ(dataset_errors_of(""),
              std::vector<std::string>{"prompts.jsonl:0: : no prompt: the file has no line"});
    EXPECT_EQ(dataset_errors_of(sharegpt_line("hi", "yo")),
              std::vector<std::string>{
                  "prompts.jsonl:0: : no prompt left of 1 lines: 1 too short, 0 too long, 0 without a prompt "
                  "and answer"});
    try {
        load_dataset_file("missing.jsonl", MemoryFileSource({}));
        FAIL() << "a missing file was read";
    } catch (const ConfigError& e) {
        EXPECT_EQ(e.diagnostics().at(0).message, "cannot read the dataset file");
    }
}

}  // namespace
}  // namespace pdctl::config
