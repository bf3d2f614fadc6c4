// Which groups a rollout replaces, in which order, with which canary, and what it refuses
// (plan/rollout.hpp).
#include "pdctl/plan/rollout.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/util/exit_code.hpp"
#include "unit/support/pd_plan.hpp"

namespace pdctl::plan {
namespace {

using ::testing::HasSubstr;

// 2P+2D behind `router` (smg or minilb); `decode_args` for both decode groups, `prefill_args` for both
// prefill groups.
Plan two_by_two(const std::string& router, const std::string& prefill_args, const std::string& decode_args) {
    return testing::pd_plan("groups: [[n1], [n2]], tp_size: 8, args: " + prefill_args,
                            "groups: [[n3], [n4]], tp_size: 8, args: " + decode_args, router);
}
// The per-group differences between two plans of the same groups.
std::vector<GroupDiff> changes(const Plan& running, const Plan& wanted) {
    std::vector<GroupDiff> diffs;
    for (const auto& stage : wanted.stages)
        diffs.push_back(diff_stage(*running.find_stage(stage.role), stage));
    return diffs;
}

std::string refusal(const Plan& wanted, const std::vector<GroupDiff>& diffs, RolloutOptions options = {}) {
    try {
        rollout_plan(wanted, diffs, options);
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        return std::string(failure.what()) + " | " + failure.hint();
    }
    return "not refused";
}

TEST(RolloutPlan, AFlagOnBothDecodesRollsThemWithTheFirstAsCanary) {
    const auto running = two_by_two("smg", "[]", "[]");
    const auto wanted = two_by_two("smg", "[]", "[--max-running-requests, '64']");
    const auto rollout = rollout_plan(wanted, changes(running, wanted), {});
    ASSERT_EQ(rollout.steps.size(), 2U);
    EXPECT_EQ(rollout.steps[0].group, "decode");
    EXPECT_TRUE(rollout.steps[0].canary);
    EXPECT_EQ(rollout.steps[0].what, "add --max-running-requests 64");
    EXPECT_EQ(rollout.steps[1].group, "decode-2");
    EXPECT_FALSE(rollout.steps[1].canary);
    EXPECT_FALSE(rollout.downtime);
    EXPECT_EQ(rollout.router, "router");
    EXPECT_THAT(rollout.unchanged,
                ::testing::ElementsAre("mooncake-master", "prefill", "prefill-2", "router"));
}

TEST(RolloutPlan, ADecodeIsTheCanaryEvenWhenAPrefillComesFirstUnlessOneIsNamed) {
    const auto running = two_by_two("smg", "[]", "[]");
    const auto wanted = two_by_two("smg", "[--max-running-requests, '64']", "[--max-running-requests, '64']");
    const auto rollout = rollout_plan(wanted, changes(running, wanted), {});
    ASSERT_EQ(rollout.steps.size(), 4U);
    EXPECT_EQ(rollout.steps[0].group, "decode");
    EXPECT_EQ(rollout.steps[1].group, "prefill");
    const auto named = rollout_plan(wanted, changes(running, wanted), {"prefill-2", false});
    EXPECT_EQ(named.steps[0].group, "prefill-2");
    EXPECT_TRUE(named.steps[0].canary);
    EXPECT_THAT(refusal(wanted, changes(running, wanted), {"router", false}),
                HasSubstr("--canary router: not a group this change starts"));
}

TEST(RolloutPlan, APageSizeOnDecodeAloneIsRefusedAndOnBothMovesEveryGroupTogether) {
    const auto running = two_by_two("smg", "[]", "[]");
    const auto decode_only = two_by_two("smg", "[]", "[--page-size, '64']");
    EXPECT_THAT(refusal(decode_only, changes(running, decode_only)),
                HasSubstr("prefill and decode speaking different KV layouts: --page-size"));
    const auto both = two_by_two("smg", "[--page-size, '64']", "[--page-size, '64']");
    EXPECT_THAT(refusal(both, changes(running, both)), HasSubstr("the KV layout changes"));
    EXPECT_THAT(refusal(both, changes(running, both)), HasSubstr("--allow-downtime"));
    const auto allowed = rollout_plan(both, changes(running, both), {"", true});
    EXPECT_TRUE(allowed.together);
    EXPECT_TRUE(allowed.downtime);
    EXPECT_EQ(allowed.steps.size(), 4U);
    EXPECT_FALSE(allowed.kv_reasons.empty());
}

TEST(RolloutPlan, MiniLbCannotRollAndNothingChangedIsNothingToDo) {
    const auto running = two_by_two("minilb", "[]", "[]");
    const auto wanted = two_by_two("minilb", "[]", "[--max-running-requests, '64']");
    EXPECT_THAT(refusal(wanted, changes(running, wanted)),
                HasSubstr("MiniLB, whose worker list is fixed at launch"));
    EXPECT_TRUE(rollout_plan(wanted, changes(running, wanted), {"", true}).downtime);
    EXPECT_THAT(refusal(running, changes(running, running)), HasSubstr("nothing to roll out"));
}

// What ops/diff.cpp reads for 2P+2D running and 3P+1D wanted: decode-2's node n4 becomes prefill-3's.
std::vector<GroupDiff> decode_two_becomes_prefill_three(const Plan& running, const Plan& wanted) {
    std::vector<GroupDiff> diffs;
    for (const auto& stage : wanted.stages) {
        if (stage.role == "prefill-3") {
            auto moved = diff_stage(stage, stage);
            moved.change = GroupChange::kRoleChanged;
            moved.running_stage = "decode-2";
            moved.mode_before = "decode";
            diffs.push_back(moved);
            continue;
        }
        diffs.push_back(diff_stage(*running.find_stage(stage.role), stage));
    }
    return diffs;
}

TEST(RolloutPlan, APdChangeMovesTheGroupThroughTheRouterAsTheCanary) {
    const auto running = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "smg");
    const auto wanted = testing::pd_plan("groups: [[n1], [n2], [n4]]", "groups: [[n3]]", "smg");
    const auto diffs = decode_two_becomes_prefill_three(running, wanted);
    const auto rollout = rollout_plan(wanted, diffs, {});
    ASSERT_EQ(rollout.steps.size(), 1U);
    EXPECT_EQ(rollout.steps[0].action, RolloutAction::kMove);
    EXPECT_EQ(rollout.steps[0].group, "prefill-3");
    EXPECT_EQ(rollout.steps[0].running_group, "decode-2");
    EXPECT_TRUE(rollout.steps[0].canary);
    EXPECT_EQ(rollout.steps[0].what, "decode-2 (decode) -> prefill-3 (prefill) on n4");
    EXPECT_TRUE(rollout.topology);
    EXPECT_FALSE(rollout.downtime);
    // The router's workers change at run time, so it is not among the changed groups.
    EXPECT_THAT(rollout.unchanged, ::testing::Contains("router"));

    // Behind MiniLB the router must be relaunched with the new list: a start, with downtime.
    const auto minilb_running = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "minilb");
    const auto minilb_wanted = testing::pd_plan("groups: [[n1], [n2], [n4]]", "groups: [[n3]]", "minilb");
    auto minilb_diffs = decode_two_becomes_prefill_three(minilb_running, minilb_wanted);
    EXPECT_THAT(refusal(minilb_wanted, minilb_diffs), HasSubstr("nor join it"));
    EXPECT_THAT(refusal(minilb_wanted, minilb_diffs), HasSubstr("applies it as `pdctl start` does"));
}

TEST(RolloutPlan, AddedGroupsComeBeforeRemovedOnesAndARemovalIsNeverTheCanary) {
    const auto running = testing::pd_plan("groups: [[n1], [n2]]", "groups: [[n3], [n4]]", "smg");
    const auto wanted = testing::pd_plan("groups: [[n1]]", "groups: [[n3], [n4], [n2]]", "smg");
    std::vector<GroupDiff> diffs;
    for (const auto& stage : wanted.stages) {
        if (stage.role == "decode-3") {
            auto added = diff_stage(stage, stage);
            added.change = GroupChange::kAdded;
            added.mode_before.clear();
            diffs.push_back(added);
        } else {
            diffs.push_back(diff_stage(*running.find_stage(stage.role), stage));
        }
    }
    auto removed = diff_stage(*running.find_stage("prefill-2"), *running.find_stage("prefill-2"));
    removed.change = GroupChange::kRemoved;
    removed.mode_after.clear();
    diffs.push_back(removed);
    const auto rollout = rollout_plan(wanted, diffs, {});
    ASSERT_EQ(rollout.steps.size(), 2U);
    EXPECT_EQ(rollout.steps[0].group, "decode-3");
    EXPECT_EQ(rollout.steps[0].action, RolloutAction::kAdd);
    EXPECT_TRUE(rollout.steps[0].canary);
    EXPECT_EQ(rollout.steps[1].group, "prefill-2");
    EXPECT_EQ(rollout.steps[1].action, RolloutAction::kRemove);
    EXPECT_FALSE(rollout.steps[1].canary);
    EXPECT_THAT(refusal(wanted, diffs, {"prefill-2", false}), HasSubstr("not a group this change starts"));
}

}  // namespace
}  // namespace pdctl::plan
