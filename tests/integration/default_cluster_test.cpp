// With no cluster file anywhere, pdctl falls back to the simulated cluster embedded in the binary.
// An operator who runs `pdctl start` in the wrong directory must be told so at normal verbosity.
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

constexpr const char* kSimulatorLine = "using the embedded simulated cluster";

// `pdctl ARGS` run from an empty directory without $PDCTL_CONFIG.
PdctlRun run_without_config(const std::vector<std::string>& args) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("pdctl-noconfig-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    exec::Command command;
    command.argv = {"env", "-u",         "PDCTL_CONFIG",
                    "sh",  "-c",         "cd \"$1\" && shift && exec \"$@\"",
                    "sh",  dir.string(), pdctl::testing::pdctl_binary()};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = std::chrono::seconds(30);
    const auto result = exec::LocalExecutor{}.run({"local", "127.0.0.1", {}, {}, {}}, command);
    std::filesystem::remove_all(dir);
    return {result.exit_code, result.out, result.err};
}

// Only verbs that read nothing live: the embedded cluster's addresses are those of `pdctl start` itself.
TEST(DefaultCluster, VerbsSayTheyUseTheEmbeddedSimulatorWithoutVerbose) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"plan"}, {"doctor"}}) {
        const auto run = run_without_config(args);
        EXPECT_NE(run.err.find(kSimulatorLine), std::string::npos) << args[0] << ": " << run.err;
        EXPECT_NE(run.err.find("pdctl.yaml"), std::string::npos) << "names where it looked: " << run.err;
    }
    // JSON output stays one clean document on stdout: the line goes to stderr.
    const auto json_plan = run_without_config({"--json", "plan"});
    EXPECT_EQ(json_plan.exit_code, 0) << json_plan.err;
    EXPECT_TRUE(nlohmann::json::accept(json_plan.out)) << json_plan.out;
    EXPECT_NE(json_plan.err.find(kSimulatorLine), std::string::npos);
}

TEST(DefaultCluster, AClusterFileGivenSaysNothingAboutTheSimulator) {
    SimCluster cluster("noconfig", 101);
    const auto plan = cluster.run({"plan"});
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_EQ(plan.err.find(kSimulatorLine), std::string::npos) << plan.err;
}

}  // namespace
}  // namespace pdctl::testing
