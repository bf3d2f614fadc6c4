// A worker-API router's workers are compared with the config's by URL and type, and its fingerprint
// leaves them out, so a group moved from decode to prefill changes what it should list, not its launch.

#include "pdctl/engine/router_membership_drift.hpp"

#include <gtest/gtest.h>

#include "unit/support/pd_plan.hpp"

namespace pdctl::engine {
namespace {

const plan::Stage& router_of(const plan::Plan& plan) {
    return *plan.find_stage("router");
}

TEST(RouterMembershipDrift, SameWorkersDoNotDrift) {
    const auto plan = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "smg");
    std::vector<health::ListedWorker> listed;
    for (const auto& worker : router_of(plan).router->workers)
        listed.push_back({"id-" + worker.stage, worker.url + "/", worker.type, "ready", true});
    EXPECT_TRUE(membership_drift(*router_of(plan).router, listed).empty());
}

TEST(RouterMembershipDrift, AGroupMovedToPrefillIsMissingAndItsDecodeExtra) {
    const auto before = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "smg");
    const auto after = testing::pd_plan("groups: [[n1], [n2], [n4]]", "groups: [[n3]]", "smg");
    std::vector<health::ListedWorker> listed;
    for (const auto& worker : router_of(before).router->workers)
        listed.push_back({"id-" + worker.stage, worker.url, worker.type, "ready", true});
    const auto drift = membership_drift(*router_of(after).router, listed);
    ASSERT_EQ(drift.missing.size(), 1u);
    EXPECT_EQ(drift.missing.front(), "prefill-3 (http://127.0.0.4:30000, prefill)");
    ASSERT_EQ(drift.extra.size(), 1u);
    EXPECT_EQ(drift.extra.front(), "http://127.0.0.4:30000 (decode)");
    EXPECT_EQ(drift.describe(),
              "lists http://127.0.0.4:30000 (decode), which the config does not have; does not list "
              "prefill-3 (http://127.0.0.4:30000, prefill)");
}

TEST(RouterLaunchIdentity, AWorkerApiRoutersFingerprintLeavesItsWorkersOut) {
    const auto before = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "smg");
    const auto after = testing::pd_plan("groups: [[n1], [n2], [n4]]", "groups: [[n3]]", "smg");
    EXPECT_EQ(router_of(before).units.front().fingerprint, router_of(after).units.front().fingerprint);
    // It is still launched with them: a router started from nothing serves the config's groups.
    EXPECT_NE(router_of(before).units.front().program.argv, router_of(after).units.front().program.argv);
}

TEST(RouterLaunchIdentity, MiniLbsFingerprintKeepsItsWorkers) {
    const auto before = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "minilb");
    const auto after = testing::pd_plan("groups: [[n1], [n2], [n4]]", "groups: [[n3]]", "minilb");
    EXPECT_NE(router_of(before).units.front().fingerprint, router_of(after).units.front().fingerprint);
}

}  // namespace
}  // namespace pdctl::engine
