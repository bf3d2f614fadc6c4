// pdctl exec: which nodes or containers a selection names, and the exact command for each.
#include "pdctl/plan/exec_targets.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::plan {
namespace {

using ::testing::HasSubstr;
using Labels = std::vector<std::string>;

// Master and prefill rank 0 share n1; prefill n1-n2, decode n3-n4, router n4; `runtime` for all.
Plan exec_fixture(const std::string& runtime) {
    const std::string yaml = R"(cluster: x
executor: local
defaults: {runtime: )" + runtime +
                             R"(, container: {cli: podman, image: pdsim:test}, gpus_per_node: 8}
nodes:
  - {name: n1, address: 127.0.0.1}
  - {name: n2, address: 127.0.0.2}
  - {name: n3, address: 127.0.0.3}
  - {name: n4, address: 127.0.0.4}
  - {name: spare, address: 127.0.0.9}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, nodes: [n1, n2], tp_size: 16}
  decode: {kind: sglang, mode: decode, nodes: [n3, n4], tp_size: 16}
  router: {kind: router, nodes: [n4]}
)";
    return build_plan(
        config::load_cluster("/x/pdctl.yaml", config::MemoryFileSource({{"/x/pdctl.yaml", yaml}})));
}

Labels target_labels(const std::vector<ExecTarget>& targets) {
    Labels out;
    for (const auto& target : targets) out.push_back(target.label);
    return out;
}

std::string exec_refusal(const Plan& plan, const ExecSelection& selection,
                         std::vector<std::string> argv = {"true"}) {
    try {
        exec_targets(plan, selection, argv, std::chrono::seconds(5));
    } catch (const Failure& failure) {
        EXPECT_EQ(failure.code(), ExitCode::kUsage);
        return std::string(failure.what()) + " | " + failure.hint();
    }
    return "not refused";
}

TEST(ExecTargets, NothingSelectedIsEveryNodeOnceAndTheCommandIsTheArgv) {
    const auto targets =
        exec_targets(exec_fixture("process"), {}, {"nvidia-smi", "-L"}, std::chrono::seconds(7));
    EXPECT_EQ(target_labels(targets), (Labels{"n1", "n2", "n3", "n4", "spare"}));
    EXPECT_EQ(targets[0].command.argv, (std::vector<std::string>{"nvidia-smi", "-L"}));
    EXPECT_EQ(targets[0].command.timeout, std::chrono::seconds(7));
    EXPECT_TRUE(targets[0].unit.empty());
}

TEST(ExecTargets, ARoleIsItsNodesARankOneOfThemAndNodeNarrows) {
    const auto plan = exec_fixture("process");
    EXPECT_EQ(target_labels(
                  exec_targets(plan, {{{"decode"}, {}}, {}, {}, false}, {"true"}, std::chrono::seconds(1))),
              (Labels{"n3", "n4"}));
    EXPECT_EQ(target_labels(
                  exec_targets(plan, {{{"prefill"}, {}}, {}, 1, false}, {"true"}, std::chrono::seconds(1))),
              (Labels{"n2"}));
    EXPECT_EQ(target_labels(exec_targets(plan, {{{"decode", "router"}, {}}, {"n4"}, {}, false}, {"true"},
                                         std::chrono::seconds(1))),
              (Labels{"n4"}))
        << "a node once, however many units it runs";
    EXPECT_EQ(
        target_labels(exec_targets(plan, {{}, {"spare"}, {}, false}, {"true"}, std::chrono::seconds(1))),
        (Labels{"spare"}));
}

TEST(ExecTargets, InContainerIsOneExecPerUnitNamingSharedNodes) {
    const auto plan = exec_fixture("docker");
    const auto targets = exec_targets(plan, {{}, {"n1"}, {}, true}, {"ps", "-ef"}, std::chrono::seconds(1));
    EXPECT_EQ(target_labels(targets), (Labels{"n1:pd-x-mooncake-master-0", "n1:pd-x-prefill-0"}));
    EXPECT_EQ(targets[1].command.argv,
              (std::vector<std::string>{"podman", "exec", "pd-x-prefill-0", "ps", "-ef"}));
    EXPECT_EQ(targets[1].unit, "pd-x-prefill-0");
    EXPECT_EQ(target_labels(
                  exec_targets(plan, {{{"decode"}, {}}, {}, {}, true}, {"true"}, std::chrono::seconds(1))),
              (Labels{"n3", "n4"}));
}

TEST(ExecTargets, EveryBadSelectionIsRefusedWithWhatToDo) {
    const auto plan = exec_fixture("process");
    EXPECT_THAT(exec_refusal(plan, {}, {}), HasSubstr("exec needs a command"));
    EXPECT_THAT(exec_refusal(plan, {{}, {"n9"}, {}, false}), HasSubstr("--node n9: no such node"));
    EXPECT_THAT(exec_refusal(plan, {{}, {}, 2, false}), HasSubstr("--rank needs --role or --group"));
    EXPECT_THAT(exec_refusal(plan, {{{"decode"}, {}}, {"n1"}, {}, false}), HasSubstr("matches no node"));
    EXPECT_THAT(exec_refusal(plan, {{{"decode"}, {}}, {}, {}, true}),
                HasSubstr("--in-container: decode runs as a process"));
    EXPECT_THAT(exec_refusal(plan, {{{"nope"}, {}}, {}, {}, false}), HasSubstr("--role nope: no such role"));
}

}  // namespace
}  // namespace pdctl::plan
