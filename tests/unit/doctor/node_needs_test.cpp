// What the shipped profiles ask of their nodes: the production profile's HCAs, NICs and image, and the
// local simulated cluster's pdsim processes.
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "pdctl/doctor/live_checks.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::doctor::testing {
namespace {

std::vector<NodeNeeds> needs_of(const std::string& relative) {
    const auto cluster = config::load_cluster(std::string(pdctl::testing::source_dir()) + "/" + relative,
                                              config::DiskFileSource());
    return node_needs(cluster, plan::build_plan(cluster));
}

TEST(DoctorNodeNeeds, ProductionPrefillNode) {
    const auto needs = needs_of("profiles/kimi3-pro6000-pd/pdctl.yaml");
    ASSERT_EQ(needs.size(), 8u);
    const auto& n1 = needs[0];
    EXPECT_EQ(n1.roles, (std::vector<std::string>{"mooncake-master", "prefill"}));
    EXPECT_EQ(n1.sglang_role, "prefill");
    EXPECT_EQ(n1.gpus, 8);
    EXPECT_FALSE(n1.pdsim_processes);
    EXPECT_TRUE(n1.rdma);
    EXPECT_FALSE(n1.process_rdma);
    EXPECT_TRUE(n1.containers_without_memlock.empty()) << "the profile passes --ulimit memlock=-1";
    ASSERT_EQ(n1.hcas.size(), 8u);  // mlx5_0..3 from NCCL_IB_HCA (prefixes) and --disaggregation-ib-device
    EXPECT_EQ(n1.hcas[0].source, "NCCL_IB_HCA");
    EXPECT_TRUE(n1.hcas[0].prefix);
    EXPECT_EQ(n1.hcas[4].source, "--disaggregation-ib-device");
    EXPECT_EQ(n1.hcas[4].device, "mlx5_0");
    EXPECT_FALSE(n1.hcas[4].prefix);
    ASSERT_EQ(n1.ifnames.size(), 2u);
    EXPECT_EQ(n1.ifnames[0].value, "bond1");
    ASSERT_EQ(n1.containers.size(), 1u) << "master and prefill share one image";
    EXPECT_EQ(n1.containers[0].image, "lmsysorg/sglang:kimi-k3");

    const auto request = probe_request(n1);
    EXPECT_TRUE(request.gpu);
    EXPECT_EQ(request.clis, (std::vector<std::string>{"docker"}));
    EXPECT_EQ(request.disk_paths, (std::vector<std::string>{"/var/lib/pdctl"}));
}

TEST(DoctorNodeNeeds, LocalProfileIsPdsimProcesses) {
    for (const auto& needs : needs_of("profiles/local/pdctl.yaml")) {
        EXPECT_TRUE(needs.pdsim_processes) << needs.node.name;
        EXPECT_TRUE(needs.containers.empty());
        EXPECT_TRUE(needs.hcas.empty());
        EXPECT_EQ(needs.ifnames.size(), 2u);
    }
}

TEST(DoctorNodeNeeds, ProbeCommandKeepsTheScriptFixed) {
    ProbeRequest request;
    request.gpu = true;
    request.clis = {"docker"};
    request.images = {{"docker", "img:1"}};
    request.disk_paths = {"/var/lib/pdctl"};
    const auto command = probe_command(request);
    ASSERT_GE(command.argv.size(), 4u);
    EXPECT_EQ(command.argv[0], "sh");
    EXPECT_EQ(command.argv[2], probe_script()) << "user values never go into the script text";
    EXPECT_EQ(std::vector<std::string>(command.argv.begin() + 3, command.argv.end()),
              (std::vector<std::string>{"pdctl-probe", "--gpu", "--cli", "docker", "--image", "docker",
                                        "img:1", "--df", "/var/lib/pdctl"}));
}

}  // namespace
}  // namespace pdctl::doctor::testing
