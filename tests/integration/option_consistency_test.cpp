// The same option means the same thing on every verb: --role/--group wherever a verb acts on roles,
// --node repeatable, and every time flag a duration. Checked on the real binary's --help and parser.
#include <gtest/gtest.h>

#include <regex>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

PdctlRun help_of(const SimCluster& cluster, const std::string& verb) {
    return cluster.run({verb, "--help"});
}

TEST(OptionConsistency, EveryVerbThatActsOnRolesTakesRoleAndGroup) {
    SimCluster cluster("options", 102);
    for (const char* verb : {"plan", "start", "stop", "restart", "status", "logs", "exec", "stack", "smoke",
                             "doctor", "push", "pull"}) {
        const auto help = help_of(cluster, verb);
        ASSERT_EQ(help.exit_code, 0) << verb;
        EXPECT_NE(help.out.find("--role ROLE ..."), std::string::npos) << verb << ":\n" << help.out;
        EXPECT_NE(help.out.find("--group GROUP ..."), std::string::npos) << verb << ":\n" << help.out;
    }
}

TEST(OptionConsistency, NodeIsRepeatableWhereverItIsAccepted) {
    SimCluster cluster("options", 102);
    for (const char* verb : {"logs", "exec", "doctor", "push", "pull"}) {
        const auto help = help_of(cluster, verb);
        EXPECT_TRUE(std::regex_search(help.out, std::regex("--node NODE \\.\\.\\. +[^\\n]*\\(repeatable\\)")))
            << verb << ":\n"
            << help.out;
    }
    // Two --node on logs select two nodes' units (the units are not running: each says so).
    const auto logs = cluster.run({"logs", "decode", "--node", "n5", "--node", "n6", "--tail", "1"});
    EXPECT_NE(logs.exit_code, 2) << logs.err;
}

TEST(OptionConsistency, EveryTimeFlagTakesADuration) {
    SimCluster cluster("options", 102);
    // Each accepts `2s` (past the parser: whatever the verb then does) and refuses `2x` as a usage error
    // naming the flag and the forms.
    const std::vector<std::vector<std::string>> uses = {{"smoke", "--timeout"},
                                                        {"exec", "--timeout"},
                                                        {"pull", "--timeout"},
                                                        {"stop", "--gpu-release-timeout"}};
    for (const auto& use : uses) {
        auto bad = use;
        bad.push_back("2x");
        if (use[0] == "exec") bad.insert(bad.end(), {"--", "true"});
        const auto refused = cluster.run(bad);
        EXPECT_EQ(refused.exit_code, 2) << use[0] << " " << use[1];
        EXPECT_NE(refused.err.find(use[1] + ": cannot read '2x'"), std::string::npos) << refused.err;
        EXPECT_NE(refused.err.find("90s, 25m"), std::string::npos) << refused.err;
    }
    const auto smoke = cluster.run({"smoke", "--timeout", "2s"});
    EXPECT_EQ(smoke.exit_code, 9) << "nothing runs, so smoke fails, but the flag was read: " << smoke.err;
}

}  // namespace
}  // namespace pdctl::testing
