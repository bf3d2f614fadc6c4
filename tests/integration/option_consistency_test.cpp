// The same option means the same thing on every verb: --role/--group wherever a verb acts on roles,
// --node repeatable, every time flag a duration shown as DURATION, a renamed flag's old spelling
// working with a notice, and --json honoured or refused. Checked on the real binary's --help and parser.
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

TEST(OptionConsistency, EveryDurationIsShownAsDuration) {
    SimCluster cluster("options", 102);
    // One metavar for a time, whatever the verb: never TEXT or INTERVAL.
    const std::vector<std::pair<std::string, std::string>> durations = {
        {"plan", "--deadline-floor"}, {"start", "--deadline-floor"}, {"stop", "--gpu-release-timeout"},
        {"restart", "--drain-grace"}, {"smoke", "--timeout"},        {"exec", "--timeout"},
        {"pull", "--timeout"},        {"bench", "--duration"},       {"bench", "--soak"},
        {"bench", "--timeout"},       {"bench", "--slo-ttft"},       {"drill", "--partition-time"},
        {"drill", "--warmup-time"},   {"drill", "--deadline"},       {"logs", "--since"}};
    for (const auto& [verb, flag] : durations) {
        const auto help = help_of(cluster, verb);
        EXPECT_TRUE(std::regex_search(help.out, std::regex(flag + " DURATION")))
            << verb << " " << flag << ":\n"
            << help.out;
    }
    EXPECT_NE(help_of(cluster, "bench").out.find("--warmup INT"), std::string::npos)
        << "bench's --warmup is a count of requests";
}

TEST(OptionConsistency, DrillsOldSpellingsStillWorkWithOneNotice) {
    SimCluster cluster("options", 102);
    // The cluster file does not allow drills, so each run ends with 2 after its flags were read; the
    // notice is one line on stderr, and the old spellings are not in --help.
    const auto old_warmup = cluster.run({"drill", "kill-rank", "--warmup", "1s"});
    EXPECT_NE(old_warmup.err.find("pdctl: --warmup is deprecated, use --warmup-time\n"), std::string::npos)
        << old_warmup.err;
    EXPECT_NE(old_warmup.err.find("drills are refused"), std::string::npos) << old_warmup.err;
    const auto old_for = cluster.run({"drill", "partition", "--node", "n8", "--for", "5s"});
    EXPECT_NE(old_for.err.find("pdctl: --for is deprecated, use --partition-time\n"), std::string::npos)
        << old_for.err;
    const auto both = cluster.run({"drill", "kill-rank", "--warmup-time", "2s", "--warmup", "1s"});
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_NE(both.err.find("--warmup excludes --warmup-time"), std::string::npos) << both.err;
    const auto fresh = cluster.run({"drill", "kill-rank", "--warmup-time", "1s"});
    EXPECT_EQ(fresh.err.find("deprecated"), std::string::npos) << fresh.err;
    const auto help = help_of(cluster, "drill").out;
    EXPECT_EQ(help.find("--warmup "), std::string::npos) << help;
    EXPECT_EQ(help.find("--for "), std::string::npos) << help;
}

TEST(OptionConsistency, ConcurrencyIsOneShapeAndADrillTakesOneLevel) {
    SimCluster cluster("options", 102);
    EXPECT_NE(help_of(cluster, "drill").out.find("--concurrency INT ..."), std::string::npos);
    EXPECT_NE(help_of(cluster, "bench").out.find("--concurrency INT ..."), std::string::npos);
    const auto two = cluster.run({"drill", "kill-rank", "--concurrency", "1,4"});
    EXPECT_EQ(two.exit_code, 2);
    EXPECT_NE(two.err.find("a drill runs one load level, not 2"), std::string::npos) << two.err;
}

TEST(OptionConsistency, JsonIsHonouredOrRefusedNeverIgnored) {
    SimCluster cluster("options", 102);
    const auto k8s = cluster.run({"--json", "export", "k8s", "--format", "lws"});
    EXPECT_EQ(k8s.exit_code, 2);
    EXPECT_TRUE(k8s.out.empty()) << "no YAML where JSON was asked for";
    EXPECT_NE(k8s.err.find("export k8s writes Kubernetes YAML manifests; it has no --json output"),
              std::string::npos)
        << k8s.err;
    const auto bundle =
        cluster.run({"--json", "logs", "--bundle", (cluster.config().parent_path() / "b.tgz").string()});
    EXPECT_EQ(bundle.exit_code, 2) << bundle.err;
}

TEST(OptionConsistency, EachJunitSaysWhatItsReportHolds) {
    SimCluster cluster("options", 102);
    const std::vector<std::pair<std::string, std::string>> holds = {
        {"start", "one test case per preflight check, stage launch and gate"},
        {"restart", "one test case per preflight check, stage launch and gate"},
        {"doctor", "one test case per static rule"},
        {"smoke", "one test case per check"},
        {"bench", "one test case per row and load level"},
        {"drill", "one test case, whether the deployment recovered"}};
    for (const auto& [verb, text] : holds) {
        const auto help = help_of(cluster, verb).out;
        EXPECT_NE(help.find(text), std::string::npos) << verb << ":\n" << help;
    }
}

}  // namespace
}  // namespace pdctl::testing
