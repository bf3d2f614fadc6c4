// restart --rolling: the steps, in order, and every refusal with its reason.
#include "pdctl/plan/rolling.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/util/exit_code.hpp"
#include "unit/support/pd_plan.hpp"

namespace pdctl::plan {
namespace {

using ::testing::HasSubstr;
using Steps = std::vector<std::string>;

// The master, `prefill` and `decode` groups as given, and a router of `impl`.
Plan rolling_fixture(const std::string& prefill, const std::string& decode, const std::string& impl) {
    return testing::pd_plan(prefill, decode, impl);
}
Steps steps_of(const RollingPlan& rolling) {
    Steps steps;
    for (const auto& step : rolling.steps) steps.push_back(to_string(step.action) + " " + step.stage);
    return steps;
}

std::string refusal(const Plan& plan, const Scope& scope, bool allow = false) {
    try {
        rolling_plan(plan, scope, allow);
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        return std::string(failure.what()) + " | " + failure.hint();
    }
    return "not refused";
}

TEST(Rolling, DecodeGroupsRollOneAtATimeThroughSmgAndPrefillIsNotTouched) {
    const auto plan = rolling_fixture("nodes: [n1]", "groups: [[n3], [n4]]", "smg");
    const auto rolling = rolling_plan(plan, {{"decode"}, {}}, false);
    EXPECT_EQ(rolling.router, "router");
    EXPECT_FALSE(rolling.router_restart);
    EXPECT_EQ(steps_of(rolling), (Steps{"drain decode", "restart decode", "add decode", "drain decode-2",
                                        "restart decode-2", "add decode-2"}));
    EXPECT_EQ(describe(rolling.steps[0], rolling), "take decode out of router and let its requests finish");
}

TEST(Rolling, APrefillJoinsTheRouterAgainOnlyOnceEveryDecodeReconnected) {
    const auto plan = rolling_fixture("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "sglang-router");
    const auto rolling = rolling_plan(plan, {{"prefill"}, {}}, false);
    EXPECT_EQ(steps_of(rolling),
              (Steps{"drain prefill", "restart prefill", "drain decode", "restart decode", "add decode",
                     "drain decode-2", "restart decode-2", "add decode-2", "add prefill", "drain prefill-2",
                     "restart prefill-2", "drain decode", "restart decode", "add decode", "drain decode-2",
                     "restart decode-2", "add decode-2", "add prefill-2"}));
    EXPECT_THAT(describe(rolling.steps[2], rolling),
                HasSubstr("it must reconnect to the restarted prefill (sglang #16903)"));
    // Asking for decode too adds nothing: every decode restarted after the last prefill.
    EXPECT_EQ(steps_of(rolling_plan(plan, {{"prefill", "decode"}, {}}, false)), steps_of(rolling));
}

TEST(Rolling, EveryDecodeTheRouterListsRollsAfterAPrefillWhateverItsDependsOn) {
    // The router pairs each prefill with each decode it lists, so a decode that does not name prefill
    // in depends_on still talked to it and must reconnect.
    const auto plan =
        rolling_fixture("groups: [[n1], [n2]]", "depends_on: [mooncake-master], groups: [[n3], [n4]]", "smg");
    const auto steps = steps_of(rolling_plan(plan, {{}, {"prefill-2"}}, false));
    EXPECT_EQ(steps,
              (Steps{"drain prefill-2", "restart prefill-2", "drain decode", "restart decode", "add decode",
                     "drain decode-2", "restart decode-2", "add decode-2", "add prefill-2"}));
}

TEST(Rolling, OneGroupByName) {
    const auto plan = rolling_fixture("nodes: [n1]", "groups: [[n3], [n4]]", "smg");
    EXPECT_EQ(steps_of(rolling_plan(plan, {{}, {"decode-2"}}, false)),
              (Steps{"drain decode-2", "restart decode-2", "add decode-2"}));
}

TEST(Rolling, ASingleGroupCannotLeaveTheRouter) {
    const auto one_decode = rolling_fixture("groups: [[n1], [n2]]", "nodes: [n3]", "smg");
    EXPECT_THAT(refusal(one_decode, {{"decode"}, {}}),
                HasSubstr("router has one decode group (decode): taking it out leaves the router without a "
                          "decode, so requests would fail"));
    // A prefill roll restarts decode too: with one decode group that fails requests as well.
    EXPECT_THAT(refusal(one_decode, {{"prefill"}, {}}),
                HasSubstr("one decode group (decode), which restarts with prefill"));
    const auto one_prefill = rolling_fixture("nodes: [n1]", "groups: [[n3], [n4]]", "smg");
    EXPECT_THAT(refusal(one_prefill, {{"prefill"}, {}}), HasSubstr("one prefill group (prefill)"));
}

TEST(Rolling, MiniLbIsRefusedSayingWhyUnlessTheRouterMayRestart) {
    const auto plan = rolling_fixture("nodes: [n1]", "groups: [[n3], [n4]]", "minilb");
    const auto refused = refusal(plan, {{"decode"}, {}});
    EXPECT_THAT(refused, HasSubstr("router is MiniLB, whose worker list is fixed at launch"));
    EXPECT_THAT(refused, HasSubstr("--allow-router-restart"));
    const auto rolling = rolling_plan(plan, {{"decode"}, {}}, true);
    EXPECT_TRUE(rolling.router_restart);
    EXPECT_EQ(steps_of(rolling),
              (Steps{"router-stop router", "restart decode", "restart decode-2", "router-start router"}));
    // A prefill takes its decodes along, as a plain restart does.
    EXPECT_EQ(steps_of(rolling_plan(plan, {{"prefill"}, {}}, true)),
              (Steps{"router-stop router", "restart prefill", "restart decode", "restart decode-2",
                     "router-start router"}));
}

TEST(Rolling, OnlyPrefillAndDecodeRollAndAScopeIsNeeded) {
    const auto plan = rolling_fixture("nodes: [n1]", "groups: [[n3], [n4]]", "smg");
    EXPECT_THAT(refusal(plan, {}), HasSubstr("--rolling needs --role or --group"));
    EXPECT_THAT(refusal(plan, {{"router"}, {}}),
                HasSubstr("--rolling restarts prefill and decode groups; router is neither"));
    EXPECT_THAT(refusal(plan, {{"mooncake-master"}, {}}), HasSubstr("mooncake-master is neither"));
}

}  // namespace
}  // namespace pdctl::plan
