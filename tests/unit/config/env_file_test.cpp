#include "pdctl/config/env_file.hpp"

#include <gtest/gtest.h>

namespace pdctl::config {
namespace {

struct Parsed {
    EnvFile file;
    std::vector<Diagnostic> errors;

    // "KEY=value" per variable, in order.
    std::vector<std::string> pairs() const {
        std::vector<std::string> out;
        for (const auto& var : file.vars) out.push_back(var.key + "=" + var.value);
        return out;
    }
    std::string value(const std::string& key) const {
        for (const auto& var : file.vars) {
            if (var.key == key) return var.value;
        }
        ADD_FAILURE() << "no key " << key;
        return {};
    }
    std::vector<std::string> formatted() const {
        std::vector<std::string> out;
        for (const auto& error : errors) out.push_back(error.format());
        return out;
    }
};

Parsed parse(const std::string& content, const std::vector<EnvVar>& base = {},
             const std::vector<std::string>& secret_keys = {}) {
    Diagnostics diags;
    Parsed parsed;
    parsed.file = parse_env_file("p.env", content, base, secret_keys, diags);
    parsed.errors = diags.items();
    return parsed;
}

using Pairs = std::vector<std::string>;

TEST(EnvFile, ParsesBlankLinesCommentsAndAssignments) {
    const auto parsed = parse("# the prefill profile\n\nA=1\n   # indented comment\nB=two\n\tC=3\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.pairs(), (Pairs{"A=1", "B=two", "C=3"}));
    EXPECT_EQ(parsed.file.path, "p.env");
}

// `# assumption: WHY` marks the next assignment (other comments and blank lines in between do not
// break the link); the marker is taken only at the start of a comment line.
TEST(EnvFile, AnAssumptionCommentMarksTheNextAssignment) {
    const auto parsed = parse(
        "# assumption: the seed names no model directory\n# (see the runbook)\n\nMODEL_PATH=/data/m\n"
        "B=2\n  # assumption:\t padded  \r\nexport C=3\nD=4 # assumption: not at the start of the line\n"
        "# assumption:\nE=5\n");
    ASSERT_TRUE(parsed.errors.empty());
    ASSERT_EQ(parsed.file.vars.size(), 5u);
    EXPECT_EQ(parsed.file.vars[0].assumption, "the seed names no model directory");
    EXPECT_EQ(parsed.file.vars[1].assumption, "");
    EXPECT_EQ(parsed.file.vars[2].assumption, "padded");
    EXPECT_EQ(parsed.file.vars[3].assumption, "");
    EXPECT_EQ(parsed.file.vars[4].assumption, "no reason given");
}

TEST(EnvFile, RecordsWhereEachKeyIs) {
    const auto parsed = parse("A=1\n\n  export B=2\n");
    ASSERT_EQ(parsed.file.vars.size(), 2u);
    EXPECT_EQ(parsed.file.vars[0].where.line, 1);
    EXPECT_EQ(parsed.file.vars[0].where.column, 1);
    EXPECT_EQ(parsed.file.vars[1].where.line, 3);
    EXPECT_EQ(parsed.file.vars[1].where.column, 10);
    EXPECT_EQ(parsed.file.vars[1].where.file, "p.env");
}

TEST(EnvFile, ExportPrefixIsIgnored) {
    const auto parsed = parse("export NCCL_IB_HCA=mlx5_0\nexport\tGLOO_SOCKET_IFNAME=bond1\nexported=x\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.pairs(), (Pairs{"NCCL_IB_HCA=mlx5_0", "GLOO_SOCKET_IFNAME=bond1", "exported=x"}));
}

TEST(EnvFile, InlineCommentsAndTrailingSpaces) {
    const auto parsed =
        parse("A=value # a comment\nB=value   \nC=a#b\nD= # empty\nE=\"x\" # after quotes\nF=\n");
    EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.formatted());
    // `#` only starts a comment after whitespace, as in bash.
    EXPECT_EQ(parsed.pairs(), (Pairs{"A=value", "B=value", "C=a#b", "D=", "E=x", "F="}));
}

TEST(EnvFile, SingleQuotesAreLiteral) {
    const auto parsed = parse("A='$HOME \\n \"x\" # not a comment'\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("A"), "$HOME \\n \"x\" # not a comment");
}

TEST(EnvFile, DoubleQuotesHaveEscapesAndExpansion) {
    const auto parsed = parse("NAME=kimi\nA=\"say \\\"hi\\\" \\\\ \\$NAME \\` ${NAME} \\n\"\n");
    EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.formatted());
    // Other backslashes stay, as in bash.
    EXPECT_EQ(parsed.value("A"), "say \"hi\" \\ $NAME ` kimi \\n");
}

TEST(EnvFile, QuotedPartsConcatenate) {
    const auto parsed = parse("A=abc\"d e\"'f g'h\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("A"), "abcd ef gh");
}

TEST(EnvFile, DoubleQuotedValuesSpanLines) {
    const auto parsed = parse("BOOTSTRAP=\"pip install x &&\n  python3 /tmp/patch.py\"\nNEXT=1\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("BOOTSTRAP"), "pip install x &&\n  python3 /tmp/patch.py");
    ASSERT_EQ(parsed.file.vars.size(), 2u);
    EXPECT_EQ(parsed.file.vars[1].where.line, 3);
}

TEST(EnvFile, BackslashNewlineContinuesTheLine) {
    const auto parsed = parse("A=\"one \\\ntwo\"\nB=x\\\ny\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("A"), "one two");
    EXPECT_EQ(parsed.value("B"), "xy");
}

TEST(EnvFile, ExpandsFromEarlierKeysThenBase) {
    const std::vector<EnvVar> base = {{"WHEELS", "/data/wheels", false, {}, {}},
                                      {"MODEL", "/models/old", false, {}, {}}};
    const auto parsed =
        parse("MODEL=/models/k3\nA=$WHEELS/mooncake.whl\nB=${MODEL}-x\nC=\"$MODEL and $WHEELS\"\n", base);
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("A"), "/data/wheels/mooncake.whl");
    EXPECT_EQ(parsed.value("B"), "/models/k3-x");  // this file's key shadows base
    EXPECT_EQ(parsed.value("C"), "/models/k3 and /data/wheels");
}

TEST(EnvFile, BaseUsesItsLastDefinition) {
    const std::vector<EnvVar> base = {{"X", "first", false, {}, {}}, {"X", "second", false, {}, {}}};
    EXPECT_EQ(parse("A=$X\n", base).value("A"), "second");
}

TEST(EnvFile, DefaultWhenUnsetOrEmpty) {
    const auto parsed = parse(
        "EMPTY=\nA=${UNSET:-/opt/x}\nB=${EMPTY:-fallback}\nC=\"${UNSET:-two words}\"\n"
        "SET=yes\nD=${SET:-$UNDEFINED_BUT_UNUSED}\nE=${UNSET:-${SET}}\nF=${UNSET:-}\n");
    EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.formatted());
    EXPECT_EQ(parsed.value("A"), "/opt/x");
    EXPECT_EQ(parsed.value("B"), "fallback");
    EXPECT_EQ(parsed.value("C"), "two words");
    EXPECT_EQ(parsed.value("D"), "yes");
    EXPECT_EQ(parsed.value("E"), "yes");
    EXPECT_EQ(parsed.value("F"), "");
}

TEST(EnvFile, LoneDollarIsLiteral) {
    const auto parsed = parse("A=cost$\nB=\"a $ b\"\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.value("A"), "cost$");
    EXPECT_EQ(parsed.value("B"), "a $ b");
}

TEST(EnvFile, RepeatedKeyKeepsItsFirstPositionAndLastValue) {
    const auto parsed = parse("A=1\nB=2\nA=3\nC=$A\n");
    EXPECT_TRUE(parsed.errors.empty());
    EXPECT_EQ(parsed.pairs(), (Pairs{"A=3", "B=2", "C=3"}));
    EXPECT_EQ(parsed.file.vars[0].where.line, 3);
}

TEST(EnvFile, AcceptsCrlfLineEndsAndABom) {
    const auto parsed = parse(
        "\xEF\xBB\xBF"
        "A=1\r\nB=\"x\"\r\n");
    EXPECT_TRUE(parsed.errors.empty()) << ::testing::PrintToString(parsed.formatted());
    EXPECT_EQ(parsed.pairs(), (Pairs{"A=1", "B=x"}));
}

TEST(EnvFile, UndefinedVariableNamesTheClosestKey) {
    const auto parsed = parse("NCCL_IB_HCA=mlx5_0,mlx5_1\nNCCL_OPTS=\"hca=${NCCL_IB_HAC}\"\n");
    EXPECT_EQ(parsed.formatted(), (Pairs{"p.env:2:16: error: NCCL_OPTS: undefined variable `NCCL_IB_HAC` "
                                         "(hint: did you mean `NCCL_IB_HCA`?)"}));
}

TEST(EnvFile, UndefinedVariableWithoutCloseKeySuggestsADefault) {
    EXPECT_EQ(parse("A=$NOWHERE\n").formatted(), (Pairs{"p.env:1:3: error: A: undefined variable `NOWHERE` "
                                                        "(hint: define it earlier in this file or in an "
                                                        "env_files file, or write ${NOWHERE:-default})"}));
}

TEST(EnvFile, UnterminatedQuotesPointAtTheOpeningQuote) {
    EXPECT_EQ(parse("A=1\nB=\"abc\nC=2\n").formatted(),
              (Pairs{"p.env:2:3: error: B: unterminated double quote (hint: close the value with `\"`)"}));
    EXPECT_EQ(parse("A='abc\n").formatted(),
              (Pairs{"p.env:1:3: error: A: unterminated single quote (hint: close the value with `'`)"}));
}

TEST(EnvFile, InvalidKeysAndMissingEquals) {
    const auto parsed = parse("1A=x\nNCCL-IB=y\nJUST_A_WORD\nB =1\nC= 1\nOK=1\n");
    EXPECT_EQ(parsed.formatted(), (Pairs{"p.env:1:1: error: invalid key `1A` (hint: keys are letters, digits "
                                         "and `_`, not starting with a digit)",
                                         "p.env:2:1: error: invalid key `NCCL-IB` (hint: keys are letters, "
                                         "digits and `_`, not starting with "
                                         "a digit)",
                                         "p.env:3:1: error: JUST_A_WORD: missing `=` (hint: each line is "
                                         "KEY=value, a # comment, or blank)",
                                         "p.env:4:2: error: B: spaces around `=` are not allowed (hint: "
                                         "write KEY=value with no spaces, as "
                                         "bash requires)",
                                         "p.env:5:3: error: C: spaces around `=` are not allowed (hint: "
                                         "write KEY=value with no spaces, as "
                                         "bash requires)"}));
    EXPECT_EQ(parsed.pairs(), (Pairs{"C=", "OK=1"}));  // parsing goes on after each error
}

TEST(EnvFile, UnquotedWhitespaceIsAnErrorLikeInBash) {
    EXPECT_EQ(
        parse("EXTRA_ARGS=--tp 32\n").formatted(),
        (Pairs{"p.env:1:16: error: EXTRA_ARGS: unquoted value contains whitespace (hint: quote the value: "
               "EXTRA_ARGS=\"...\"; bash would run the rest as a command)"}));
}

TEST(EnvFile, ShellConstructsThatWouldRunCommandsAreErrors) {
    const auto parsed = parse("A=$(hostname)\nB=`date`\nC=a;b\nD=${#X}\nE=$1\nF=${X/a/b}\n");
    EXPECT_EQ(
        parsed.formatted(),
        (Pairs{
            "p.env:1:3: error: A: command substitution is not supported (hint: single-quote the value if `$` "
            "is meant literally)",
            "p.env:2:3: error: B: command substitution is not supported (hint: single-quote the value if `$` "
            "is meant literally)",
            "p.env:3:4: error: C: unquoted shell metacharacter `;` (hint: quote the value: C=\"...\")",
            "p.env:4:3: error: D: bad substitution (hint: supported forms: $VAR, ${VAR}, ${VAR:-default})",
            "p.env:5:3: error: E: special parameter `$1` is not supported (hint: single-quote the value if "
            "`$` is meant literally)",
            "p.env:6:3: error: F: unsupported expansion `${X/...` (hint: supported forms: $VAR, ${VAR}, "
            "${VAR:-default})"}));
}

TEST(EnvFile, UnterminatedBrace) {
    EXPECT_EQ(parse("A=${X:-abc\n").formatted(),
              (Pairs{"p.env:1:3: error: A: unterminated `${` (hint: close it with `}`)"}));
}

TEST(EnvFile, LooksSecretByName) {
    EXPECT_TRUE(looks_secret("HF_TOKEN"));
    EXPECT_TRUE(looks_secret("aws_secret_access_key"));
    EXPECT_TRUE(looks_secret("DB_Password"));
    EXPECT_FALSE(looks_secret("NCCL_IB_HCA"));
    EXPECT_FALSE(looks_secret("MY_API_KEY"));
}

TEST(EnvFile, MarksSecretsByNameByListAndByExpansion) {
    const std::vector<EnvVar> base = {{"SHARED_TOKEN", "t0k", true, {}, {}}};
    const auto parsed =
        parse("HF_TOKEN=hf_x\nMY_API_KEY=k\nPLAIN=p\nAUTH=\"Bearer $HF_TOKEN\"\nFROM_BASE=$SHARED_TOKEN\n",
              base, {"MY_API_KEY"});
    ASSERT_EQ(parsed.file.vars.size(), 5u);
    EXPECT_TRUE(parsed.file.vars[0].secret);
    EXPECT_TRUE(parsed.file.vars[1].secret);
    EXPECT_FALSE(parsed.file.vars[2].secret);
    EXPECT_TRUE(parsed.file.vars[3].secret) << "a value built from a secret is a secret";
    EXPECT_TRUE(parsed.file.vars[4].secret);
}

TEST(EnvFile, SecretValuesNeverAppearInMessages) {
    // Every error a secret's line can have, each with the secret text right next to it.
    const std::string content =
        "HF_TOKEN=hf_SeCrEt1 hf_SeCrEt2\n"
        "MY_API_KEY=\"hf_SeCrEt3\n"
        "\"\n"
        "DB_PASSWORD=hf_SeCrEt4${hf_SeCrEt5}\n"
        "API_TOKEN=${hf_SeCrEt6/x}\n"
        "X_SECRET=hf_SeCrEt7$9\n"
        "HF_TOKEN hf_SeCrEt8\n"
        "OTHER_TOKEN=hf_SeCrEt9;\n";
    const auto parsed = parse(content, {}, {"MY_API_KEY"});
    EXPECT_EQ(parsed.errors.size(), 6u) << ::testing::PrintToString(parsed.formatted());
    for (const auto& line : parsed.formatted()) EXPECT_EQ(line.find("SeCrEt"), std::string::npos) << line;
    EXPECT_EQ(parsed.formatted()[1],
              "p.env:4:23: error: DB_PASSWORD: undefined variable, not named because it is part of a secret "
              "value (hint: "
              "single-quote the value if `$` is meant literally)");
}

}  // namespace
}  // namespace pdctl::config
