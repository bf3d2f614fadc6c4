// Bash completion, end to end: the script `pdctl completion bash` prints, sourced into a real bash
// (with and without the bash-completion package's helpers), asked what follows a half-typed line;
// `pdctl __complete` answers from the app's verbs and flags and from the cluster file in use
// (block 98; nothing is started).
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

constexpr const char* kBashCompletion = "/usr/share/bash-completion/bash_completion";

class Completion : public ::testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        if (GetParam() && !std::filesystem::exists(kBashCompletion))
            GTEST_SKIP() << "no bash-completion package here";
        // A second prefill group, so group names differ from role names.
        std::string yaml = read_text(cluster.config());
        const std::string n8 = "  - {name: n8, address: " + cluster.address(8) + "}\n";
        const auto at = yaml.find(n8);
        ASSERT_NE(at, std::string::npos);
        std::string more;
        for (int i = 9; i <= 12; ++i)
            more += "  - {name: n" + std::to_string(i) + ", address: " + cluster.address(i) + "}\n";
        yaml.insert(at + n8.size(), more);
        const std::string placement = "    nodes: [n1, n2, n3, n4]\n";
        const auto prefill = yaml.find(placement);
        ASSERT_NE(prefill, std::string::npos);
        yaml.replace(prefill, placement.size(), "    groups: [[n1, n2, n3, n4], [n9, n10, n11, n12]]\n");
        write_text(cluster.config(), yaml);
        ASSERT_EQ(cluster.run({"plan"}).exit_code, 0) << "the edited config loads";
        const auto script = cluster.run({"completion", "bash"});
        ASSERT_EQ(script.exit_code, 0) << script.err;
        write_text(dir() / "pdctl.bash", script.out);
    }
    std::filesystem::path dir() const { return cluster.config().parent_path(); }

    // What <Tab> offers at the end of `line` ("pdctl" stands for the binary under test), one per line.
    std::vector<std::string> tab(const std::string& line, const std::string& environment = "") {
        std::string program = "set -u\n";
        if (GetParam()) program += std::string("source ") + kBashCompletion + "\n";
        program += "source " + (dir() / "pdctl.bash").string() +
                   "\n"
                   // As bash fills them for a completion function; COMP_WORDBREAKS splits at '='.
                   "COMP_LINE=$1; COMP_POINT=${#COMP_LINE}\n"
                   "read -ra COMP_WORDS <<< \"${COMP_LINE//=/ = }\"\n"
                   "[[ $COMP_LINE == *[\\ =] ]] && COMP_WORDS+=('')\n"
                   "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                   "COMPREPLY=()\n"
                   "_pdctl pdctl \"${COMP_WORDS[COMP_CWORD]}\"\n"
                   "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        write_text(dir() / "tab.sh", program);
        std::string expanded = line;
        const auto at = expanded.find("pdctl");
        expanded.replace(at, 5, pdctl::testing::pdctl_binary());
        exec::LocalExecutor executor;
        exec::Command command;
        command.argv = {"env", "-u", "PDCTL_CONFIG"};
        if (!environment.empty()) command.argv.push_back(environment);
        command.argv.insert(command.argv.end(), {"bash", "--norc", (dir() / "tab.sh").string(), expanded});
        command.timeout = std::chrono::seconds(30);
        const auto result = executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        std::vector<std::string> words;
        std::istringstream in(result.out);
        for (std::string word; std::getline(in, word);)
            if (!word.empty()) words.push_back(word);
        return words;
    }
    std::string config() const { return cluster.config().string(); }

    SimCluster cluster{"complete", 98};
};

using Words = std::vector<std::string>;

TEST_P(Completion, VerbsAndTheirFlagsComeFromTheApp) {
    EXPECT_EQ(tab("pdctl st"), (Words{"stack", "start", "status", "stop"}));
    EXPECT_EQ(tab("pdctl lock "), (Words{"release", "status"}));
    const auto flags = tab("pdctl start --dead");
    EXPECT_EQ(flags, (Words{"--deadline-floor", "--deadline-policy"}));
    const auto stop = tab("pdctl stop --");
    EXPECT_NE(std::find(stop.begin(), stop.end(), "--gpu-release-timeout"), stop.end());
    EXPECT_NE(std::find(stop.begin(), stop.end(), "--json"), stop.end()) << "global flags follow the verb";
    EXPECT_EQ(std::find(stop.begin(), stop.end(), "--deadline-policy"), stop.end()) << "start's, not stop's";
    EXPECT_EQ(tab("pdctl start --deadline-policy "), (Words{"fixed", "learned"}));
    EXPECT_EQ(tab("pdctl start --deadline-policy=l"), (Words{"learned"}));
    EXPECT_EQ(tab("pdctl plan re"), (Words{"restart"}));
    // A renamed flag's old spelling still parses but is not offered.
    EXPECT_EQ(tab("pdctl drill --warm"), (Words{"--warmup-time"}));
    EXPECT_EQ(tab("pdctl drill --fo"), (Words{}));
}

TEST_P(Completion, RolesGroupsAndNodesComeFromTheClusterFileInUse) {
    const std::string c = "pdctl -c " + config() + " ";
    EXPECT_EQ(tab(c + "start --role "), (Words{"decode", "mooncake-master", "prefill", "router"}));
    EXPECT_EQ(tab(c + "status --group pre"), (Words{"prefill", "prefill-2"}));
    EXPECT_EQ(tab(c + "logs "), (Words{"decode", "mooncake-master", "prefill", "prefill-2", "router"}));
    EXPECT_EQ(tab(c + "logs prefill --node n1"), (Words{"n1", "n10", "n11", "n12"}));
    EXPECT_EQ(tab("pdctl --config=" + config() + " exec --node n9"), (Words{"n9"}));
    // From $PDCTL_CONFIG, and without any: the embedded profile, which has one prefill group.
    EXPECT_EQ(tab("pdctl logs pre", "PDCTL_CONFIG=" + config()), (Words{"prefill", "prefill-2"}));
    EXPECT_EQ(tab("pdctl logs pre"), (Words{"prefill"}));
    // A config that does not load completes no names, and says nothing.
    write_text(dir() / "broken.yaml", "roles: [\n");
    EXPECT_TRUE(tab("pdctl -c " + (dir() / "broken.yaml").string() + " start --role ").empty());
}

TEST_P(Completion, FileValuesAreCompletedByTheShell) {
    std::filesystem::create_directories(dir() / "reports");
    write_text(dir() / "reports" / "junit-start.xml", "");
    EXPECT_EQ(tab("pdctl start --junit " + (dir() / "reports" / "ju").string()),
              (Words{(dir() / "reports" / "junit-start.xml").string()}));
    EXPECT_EQ(tab("pdctl -c " + (dir() / "rep").string()), (Words{(dir() / "reports").string()}));
    EXPECT_TRUE(tab("pdctl exec -- l").empty()) << "the remote command is the operator's";
}

INSTANTIATE_TEST_SUITE_P(Bash, Completion, ::testing::Values(false, true),
                         [](const auto& param) { return param.param ? "WithBashCompletion" : "PlainBash"; });

}  // namespace
}  // namespace pdctl::testing
