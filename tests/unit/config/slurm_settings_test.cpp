// `executor: slurm` and its `slurm:` block (config/detail/slurm_loader.hpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::load;
using testing::load_error;

// The minimal cluster without its container image, under SLURM, with `block` after the header.
std::string slurm_cluster(const std::string& block) {
    std::string yaml = testing::kMinimalCluster;
    const std::string image = "defaults:\n  container: {image: lmsysorg/sglang:kimi-k3}\n";
    yaml.replace(yaml.find(image), image.size(), "executor: slurm\n" + block);
    return yaml;
}

TEST(SlurmSettings, AreReadWithTheirDefaultsAndTheRolesRunAsProcesses) {
    const auto cluster = load(slurm_cluster(R"(slurm:
  partition: gpu-h100
  account: llm.serving
  time_limit: 750m
  gres: gpu:h100:8
  sbatch_options: [--qos=high, --reservation, pd-week]
  output_dir: /shared/pdctl
)"));
    EXPECT_EQ(cluster.executor, ExecutorKind::Slurm);
    EXPECT_EQ(cluster.slurm.partition, "gpu-h100");
    EXPECT_EQ(cluster.slurm.account, "llm.serving");
    EXPECT_EQ(cluster.slurm.time_limit, 12h + 30min);
    EXPECT_EQ(cluster.slurm.gres, "gpu:h100:8");
    EXPECT_EQ(cluster.slurm.sbatch_options,
              (std::vector<std::string>{"--qos=high", "--reservation", "pd-week"}));
    EXPECT_EQ(cluster.slurm.output_dir, "/shared/pdctl");
    for (const auto& role : cluster.roles) EXPECT_EQ(role.runtime, RuntimeKind::Process) << role.name;

    const auto bare = load(slurm_cluster(""));
    EXPECT_TRUE(bare.slurm.partition.empty());
    EXPECT_EQ(bare.slurm.time_limit, 0s);
    EXPECT_EQ(bare.slurm.where.line, 2) << "the executor line, for errors about SLURM as a whole";
}

TEST(SlurmSettings, OptionsPdctlSetsItselfAreRefusedAtTheirLine) {
    const auto error =
        load_error(slurm_cluster("slurm:\n  sbatch_options: [--qos=high, --job-name=x, -N4, -w, n1]\n"));
    EXPECT_THAT(
        error,
        HasSubstr("/c/pdctl.yaml:4:32: error: slurm.sbatch_options[1]: pdctl sets `--job-name` itself"));
    EXPECT_THAT(error, HasSubstr("slurm.sbatch_options[2]: pdctl sets `-N` itself"));
    EXPECT_THAT(error, HasSubstr("slurm.sbatch_options[3]: pdctl sets `-w` itself"));
    EXPECT_THAT(error, HasSubstr("finds it again by name"));
    EXPECT_THAT(load_error(slurm_cluster("slurm:\n  sbatch_options: [--partition=gpu]\n")),
                HasSubstr("hint: use slurm.partition"));
}

TEST(SlurmSettings, BadValuesAreErrorsAtTheValue) {
    const auto error = load_error(slurm_cluster(R"(slurm:
  partition: "gpu h100"
  time_limit: 0s
  gres: 8
  output_dir: shared/pdctl
  nodes: 4
)"));
    EXPECT_THAT(error,
                HasSubstr("/c/pdctl.yaml:4:14: error: slurm.partition: invalid partition name `gpu h100`"));
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:5:15: error: slurm.time_limit: must be greater than 0"));
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:6:9: error: slurm.gres: invalid gres `8`"));
    EXPECT_THAT(error, HasSubstr("NAME[:TYPE]:COUNT per node, e.g. gpu:8"));
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:7:15: error: slurm.output_dir: must be an absolute path"));
    EXPECT_THAT(error, HasSubstr("/c/pdctl.yaml:8:3: error: slurm.nodes: unknown key"));
}

TEST(SlurmSettings, TheBlockWithoutTheExecutorAndContainersUnderSlurmAreErrors) {
    std::string ssh = testing::kMinimalCluster;
    ssh += "slurm: {partition: gpu}\n";
    EXPECT_THAT(load_error(ssh), HasSubstr("error: slurm: `slurm:` is only read with `executor: slurm`"));

    std::string docker = slurm_cluster("");
    docker.insert(docker.find("    nodes: [n1]\n  decode:"),
                  "    runtime: docker\n    container: {image: x}\n");
    const auto error = load_error(docker);
    EXPECT_THAT(error, HasSubstr("roles.prefill.runtime: runtime docker under `executor: slurm`"));
    EXPECT_THAT(error, HasSubstr("use `runtime: process`"));
}

}  // namespace
}  // namespace pdctl::config
