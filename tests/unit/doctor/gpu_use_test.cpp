// The stand-alone GPU compute-process query (stop's GPU release wait, the start preflight): the real
// nvidia-smi answers of an H200 node, and every way the question can go unanswered.
#include "pdctl/doctor/gpu_use.hpp"

#include <gtest/gtest.h>

#include "doctor_test_util.hpp"

namespace pdctl::doctor {
namespace {

exec::CommandResult answered(std::string out, int exit_code = 0) {
    exec::CommandResult result;
    result.exit_code = exit_code;
    result.out = std::move(out);
    return result;
}

TEST(GpuUse, TheBusyH200ListsItsProcessAndTheIdleOneNone) {
    const auto busy = read_gpu_apps(answered(testing::fixture("nvidia-smi-h200-busy.compute-apps.csv")));
    EXPECT_TRUE(busy.nvidia_smi);
    EXPECT_EQ(busy.error, "");
    ASSERT_EQ(busy.apps.size(), 1u);
    EXPECT_EQ(describe(busy.apps[0]), "pid 432 python3 19592 MiB");
    const auto idle = read_gpu_apps(answered(testing::fixture("nvidia-smi-h200-idle.compute-apps.csv")));
    EXPECT_TRUE(idle.nvidia_smi);
    EXPECT_EQ(idle.error, "");
    EXPECT_TRUE(idle.apps.empty());
}

TEST(GpuUse, ANodeWithoutNvidiaSmiIsUncheckedNotIdle) {
    const auto none = read_gpu_apps(answered("pdctl: no nvidia-smi\n"));
    EXPECT_FALSE(none.nvidia_smi);
    EXPECT_TRUE(none.apps.empty());
}

TEST(GpuUse, FailuresAreSaidInTheNodesWords) {
    auto unreachable = answered("");
    unreachable.exit_code = -1;
    unreachable.transport_error = "connection refused";
    EXPECT_EQ(read_gpu_apps(unreachable).error, "connection refused");
    EXPECT_TRUE(read_gpu_apps(unreachable).nvidia_smi) << "an unknown node may hold GPUs";
    auto failed = answered("", 9);
    failed.err = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n";
    EXPECT_EQ(
        read_gpu_apps(failed).error,
        "nvidia-smi exited 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.");
    auto hung = answered("");
    hung.exit_code = -1;
    hung.timed_out = true;
    EXPECT_EQ(read_gpu_apps(hung).error, "nvidia-smi did not answer within 15s");
}

TEST(GpuUse, TheCommandIsAFixedScriptWithABound) {
    const auto command = gpu_apps_command();
    ASSERT_EQ(command.argv.size(), 5u);
    EXPECT_EQ(command.argv[0], "sh");
    // The marker it prints without nvidia-smi is a parameter: the one read_gpu_apps looks for.
    EXPECT_EQ(read_gpu_apps(answered(command.argv[4] + "\n")).nvidia_smi, false);
    EXPECT_NE(command.argv[2].find("--query-compute-apps=pid,process_name,used_gpu_memory --format=csv"),
              std::string::npos);
    EXPECT_GT(command.timeout.count(), 0);
}

}  // namespace
}  // namespace pdctl::doctor
