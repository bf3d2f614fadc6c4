// Several groups per role on the simulated cluster. Changing the P:D ratio is editing the config and
// running `start` (convergent): it starts the new groups, stops the groups no longer in the config,
// leaves the unchanged ones running, and restarts the router because its worker list changed.
#include <gtest/gtest.h>

#include <map>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

constexpr int kGroupsBlock = 81;

void replace_first(std::string& text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << "no `" << from << "` in:\n" << text;
    text.replace(at, from.size(), to);
}

class Groups : public ::testing::Test {
  protected:
    void SetUp() override {
        // Four more nodes, n9-n12, for a second group.
        std::string yaml = read_text(cluster.config());
        const std::string n8 = "  - {name: n8, address: " + cluster.address(8) + "}\n";
        std::string more;
        for (int i = 9; i <= 12; ++i)
            more += "  - {name: n" + std::to_string(i) + ", address: " + cluster.address(i) + "}\n";
        replace_first(yaml, n8, n8 + more);
        write_text(cluster.config(), yaml);
    }

    // Sets the `nodes:`/`groups:` line of the sglang role `role`.
    void place(const std::string& role, const std::string& placement) {
        std::string yaml = read_text(cluster.config());
        const std::string mode = "    mode: " + role + "\n";
        const auto at = yaml.find(mode);
        ASSERT_NE(at, std::string::npos);
        const auto line = at + mode.size();
        const auto end = yaml.find('\n', line);
        yaml.replace(line, end - line, "    " + placement);
        write_text(cluster.config(), yaml);
    }

    void start_and_smoke(const std::string& when) {
        const auto start = cluster.run({"start"});
        ASSERT_EQ(start.exit_code, 0) << when << ": " << start.out << start.err;
        const auto smoke = cluster.run({"smoke"});
        EXPECT_EQ(smoke.exit_code, 0) << when << ": /generate through the router: " << smoke.out << smoke.err;
    }

    SimCluster cluster{"ratio", kGroupsBlock};
};

TEST_F(Groups, ChangingTheRatioMovesOnlyTheGroupsThatChanged) {
    start_and_smoke("1P+1D");
    const auto first = running_unit_pids(cluster);
    ASSERT_EQ(first.size(), 10u) << "master, 4 prefill, 4 decode, router";
    const auto prefill0 = cluster.unit("prefill", 0);
    const auto decode0 = cluster.unit("decode", 0);
    const auto master = cluster.unit("mooncake-master", 0);
    const auto router = cluster.unit("router", 0);

    // 2P+1D: a second prefill group on n9-n12.
    place("prefill", "groups: [[n1, n2, n3, n4], [n9, n10, n11, n12]]");
    const auto plan = cluster.run({"plan", "start"});
    EXPECT_NE(plan.out.find("prefill-2 ×4 (prefill, group 2 of 2)"), std::string::npos) << plan.out;
    start_and_smoke("2P+1D");
    const auto second = running_unit_pids(cluster);
    EXPECT_EQ(second.size(), 14u);
    EXPECT_EQ(second.count(cluster.unit("prefill-2", 3)), 1u);
    for (const auto& unchanged : {master, prefill0, cluster.unit("prefill", 3), decode0})
        EXPECT_EQ(second.at(unchanged), first.at(unchanged)) << unchanged << " was restarted";
    EXPECT_NE(second.at(router), first.at(router)) << "the router's worker list changed: it must restart";

    // 1P+2D: prefill back to one group, decode split into two.
    place("prefill", "nodes: [n1, n2, n3, n4]");
    place("decode", "groups: [[n5, n6, n7, n8], [n9, n10, n11, n12]]");
    start_and_smoke("1P+2D");
    const auto third = running_unit_pids(cluster);
    EXPECT_EQ(third.size(), 14u);
    EXPECT_EQ(third.count(cluster.unit("prefill-2", 0)), 0u) << "the removed group still runs";
    EXPECT_EQ(third.count(cluster.unit("decode-2", 0)), 1u);
    for (const auto& unchanged : {master, prefill0, decode0})
        EXPECT_EQ(third.at(unchanged), first.at(unchanged)) << unchanged << " was restarted";
    EXPECT_NE(third.at(router), second.at(router));

    const auto status = cluster.run({"status"});
    EXPECT_NE(status.out.find("GROUP"), std::string::npos) << status.out;
    EXPECT_NE(status.out.find("2/2"), std::string::npos) << status.out;
}

// `restart --role decode` never touches prefill, the master or the router: their pids are unchanged,
// and /generate through the router works after it.
TEST(RoleScope, RestartingDecodeLeavesPrefillAndTheMasterAlone) {
    SimCluster cluster("scope", 82);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto before = running_unit_pids(cluster);
    ASSERT_EQ(before.size(), 10u);
    const auto restart = cluster.run({"restart", "--role", "decode"});
    ASSERT_EQ(restart.exit_code, 0) << restart.out << restart.err;
    const auto after = running_unit_pids(cluster);
    ASSERT_EQ(after.size(), 10u);
    for (const auto& [unit, pid] : before) {
        const bool decode = unit.find("-decode-") != std::string::npos;
        if (decode)
            EXPECT_NE(after.at(unit), pid) << unit << " was not restarted";
        else
            EXPECT_EQ(after.at(unit), pid) << unit << " was touched by restart --role decode";
    }
    const auto smoke = cluster.run({"smoke"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.out << smoke.err;

    // status --role: only that role, and its own exit code.
    const auto status = cluster.run({"--json", "status", "--role", "decode"});
    EXPECT_EQ(status.exit_code, 0) << status.out;
    const auto doc = json::parse(status.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << status.out;
    ASSERT_EQ(doc["roles"].size(), 1u);
    EXPECT_EQ(doc["roles"][0]["role"], "decode");

    // A scoped start whose dependency is down refuses before it launches anything.
    ASSERT_EQ(cluster.run({"stop", "--role", "prefill"}).exit_code, 0);
    const auto refused = cluster.run({"restart", "--role", "decode"});
    EXPECT_EQ(refused.exit_code, 7) << refused.out << refused.err;
    EXPECT_NE((refused.out + refused.err).find("decode depends on prefill, which this run does not start"),
              std::string::npos)
        << refused.out << refused.err;
    EXPECT_EQ(running_unit_pids(cluster).count(cluster.unit("mooncake-master", 0)), 1u)
        << "the master outside the scope was stopped";
}

}  // namespace
}  // namespace pdctl::testing
