// --role / --group: which stages a verb acts on, and what moves with them.
#include "pdctl/plan/scope.hpp"

#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::plan {
namespace {

using Names = std::vector<std::string>;

// Two prefill groups, one decode, the master and a router.
Plan grouped_plan() {
    const std::string yaml = R"(cluster: s
executor: local
defaults: {runtime: process, gpus_per_node: 8}
nodes:
  - {name: n1, address: 127.0.0.1}
  - {name: n2, address: 127.0.0.2}
  - {name: n3, address: 127.0.0.3}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, groups: [[n1], [n2]]}
  decode: {kind: sglang, mode: decode, nodes: [n3]}
  router: {kind: router, nodes: [n3]}
)";
    return build_plan(
        config::load_cluster("/s/pdctl.yaml", config::MemoryFileSource({{"/s/pdctl.yaml", yaml}})));
}

Names stage_names(const Plan& plan) {
    Names names;
    for (const auto& stage : plan.stages) names.push_back(stage.role);
    return names;
}

TEST(Scope, EmptyIsTheWholePlan) {
    const auto plan = grouped_plan();
    EXPECT_EQ(stage_names(scope_plan(plan, {}, "restart").plan), stage_names(plan));
}

TEST(Scope, ARoleIsEveryGroupAndARestartOfPrefillTakesDecodeAlong) {
    const auto scoped = scope_plan(grouped_plan(), {{"prefill"}, {}}, "restart");
    EXPECT_EQ(stage_names(scoped.plan), (Names{"prefill", "prefill-2", "decode"}));
    ASSERT_EQ(scoped.closure.size(), 1u);
    EXPECT_EQ(scoped.closure[0],
              "decode restarts with prefill: a decode must reconnect to a restarted prefill (sglang #16903)");
}

TEST(Scope, DecodeAloneTouchesNothingElseAndStopTakesNothingAlong) {
    EXPECT_EQ(stage_names(scope_plan(grouped_plan(), {{"decode"}, {}}, "restart").plan), (Names{"decode"}));
    EXPECT_EQ(stage_names(scope_plan(grouped_plan(), {{"prefill"}, {}}, "stop").plan),
              (Names{"prefill", "prefill-2"}));
}

TEST(Scope, OneGroupByItsName) {
    const auto scoped = scope_plan(grouped_plan(), {{}, {"prefill-2"}}, "restart");
    EXPECT_EQ(stage_names(scoped.plan), (Names{"prefill-2", "decode"}));
}

TEST(Scope, UnknownNamesAreUsageErrorsListingWhatExists) {
    try {
        scope_plan(grouped_plan(), {{"prefil"}, {}}, "start");
        FAIL() << "expected a Failure";
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        EXPECT_STREQ(failure.what(), "--role prefil: no such role");
        EXPECT_EQ(failure.hint(), "roles: mooncake-master, prefill, decode, router");
    }
    EXPECT_THROW(scope_plan(grouped_plan(), {{}, {"prefill-3"}}, "start"), Failure);
}

}  // namespace
}  // namespace pdctl::plan
