// Under SLURM a person's command reaches a node as a step of a job that holds it
// (backend/srun_executor.hpp): which job it enters, the srun line, and the answer when none holds it.
#include "pdctl/backend/srun_executor.hpp"

#include <gtest/gtest.h>

namespace pdctl::backend {
namespace {

// Answers squeue from `jobs` and records every other command; runs nothing.
class ScriptedHere : public exec::Executor {
  public:
    std::string jobs;
    bool squeue_fails = false;
    std::vector<std::vector<std::string>> ran;

    exec::CommandResult run(const config::Node&, const exec::Command& command) override {
        ran.push_back(command.argv);
        exec::CommandResult result;
        if (command.argv.front() == "squeue") {
            result.exit_code = squeue_fails ? 1 : 0;
            if (squeue_fails) result.err = "squeue: error: Unable to contact slurm controller";
            result.out = jobs;
        } else {
            result.exit_code = 0;
            result.out = "ran\n";
        }
        return result;
    }
};

config::Node node(const std::string& name) {
    config::Node n;
    n.name = name;
    return n;
}

exec::Command hostname() {
    exec::Command command;
    command.argv = {"printenv", "SLURMD_NODENAME"};
    command.stdin_data = "input";
    return command;
}

TEST(SrunExecutor, EntersARunningJobOfTheDeploymentOnThatNode) {
    ScriptedHere here;
    here.jobs = "40|someone-elses-job\n41|pd-demo-prefill\n42|pd-demo-decode\n";
    SrunExecutor srun(here, "pd-demo-", "");
    const auto result = srun.run(node("pds3"), hostname());
    EXPECT_TRUE(result.ok());
    ASSERT_EQ(here.ran.size(), 2u);
    EXPECT_EQ(here.ran[0], running_jobs_query("pds3").argv);
    EXPECT_EQ(here.ran[0], (std::vector<std::string>{"squeue", "--noheader", "--states=RUNNING",
                                                     "--nodelist=pds3", "--format=%i|%j"}));
    EXPECT_EQ(here.ran[1],
              (std::vector<std::string>{"srun", "--overlap", "--jobid=41", "--nodelist=pds3", "--nodes=1",
                                        "--ntasks=1", "--quiet", "printenv", "SLURMD_NODENAME"}));
}

TEST(SrunExecutor, UnderAnAllocationEntersItWithoutAskingSqueue) {
    ScriptedHere here;
    SrunExecutor srun(here, "pd-demo-", "77");
    srun.run(node("pds1"), hostname());
    ASSERT_EQ(here.ran.size(), 1u);
    EXPECT_EQ(here.ran[0][2], "--jobid=77");
}

TEST(SrunExecutor, ANodeNoJobOfTheDeploymentHoldsIsUnreachableAndNamed) {
    ScriptedHere here;
    here.jobs = "40|pd-demo2-prefill\n";  // another deployment whose name starts the same way
    SrunExecutor srun(here, "pd-demo-", "");
    const auto result = srun.run(node("pds5"), hostname());
    EXPECT_NE(result.transport_error.find("no job of this deployment runs on pds5"), std::string::npos)
        << result.transport_error;
    EXPECT_EQ(here.ran.size(), 1u) << "nothing but the squeue ran";
}

TEST(SrunExecutor, AFailingSqueueIsATransportErrorWithSlurmsWords) {
    ScriptedHere here;
    here.squeue_fails = true;
    SrunExecutor srun(here, "pd-demo-", "");
    const auto result = srun.run(node("pds1"), hostname());
    EXPECT_NE(result.transport_error.find("squeue failed: exit 1: squeue: error: Unable to contact"),
              std::string::npos)
        << result.transport_error;
}

}  // namespace
}  // namespace pdctl::backend
