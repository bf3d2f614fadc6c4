// `doctor: ignore:` may name any static rule or live check, and nothing else.
#include "pdctl/doctor/rule_ids.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pdctl::doctor {
namespace {

using ::testing::Contains;

config::Cluster acknowledging(std::vector<std::string> rules) {
    config::Cluster cluster;
    int line = 30;
    for (auto& rule : rules)
        cluster.doctor.ignore.push_back({std::move(rule), "why", {"pdctl.yaml", line++, 13}});
    return cluster;
}

TEST(DoctorRuleIds, ListsStaticRulesAndLiveChecks) {
    const auto ids = rule_ids();
    EXPECT_THAT(ids, Contains("PD014"));
    EXPECT_THAT(ids, Contains("NET003"));
    EXPECT_THAT(ids, Contains("RDMA002"));
}

TEST(DoctorRuleIds, KnownRulesPassAndAnUnknownOneIsAnErrorAtItsLine) {
    EXPECT_TRUE(check_acknowledged_rules(acknowledging({"PD014", "GPU003", "PORT001"})).empty());
    const auto unknown = check_acknowledged_rules(acknowledging({"PD014", "PD041"}));
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0].where.line, 31);
    EXPECT_EQ(unknown[0].key_path, "doctor.ignore[1].rule");
    EXPECT_EQ(unknown[0].message, "no doctor rule or check is called PD041");
    EXPECT_EQ(unknown[0].hint, "did you mean `PD001`?");  // the nearest by edit distance
}

}  // namespace
}  // namespace pdctl::doctor
