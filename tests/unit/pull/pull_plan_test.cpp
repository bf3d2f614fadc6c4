// pull/pull_plan: which node pulls which image, the exact argv, ID parsing and the ID comparison.
#include "pdctl/pull/pull_plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/util/shell_quote.hpp"
#include "unit/support/sample_cluster.hpp"

namespace pdctl::pull {
namespace {

using ::testing::ElementsAre;

// The sample PD cluster with prefill and decode in containers (same image, podman), the router in
// another image (docker), the master as a process.
config::Cluster container_cluster() {
    auto cluster = pdctl::testing::sample_cluster();
    for (auto& role : cluster.roles) {
        if (role.name == "prefill" || role.name == "decode") {
            role.runtime = config::RuntimeKind::Docker;
            role.container.cli = "podman";
            role.container.image = "registry.local:5000/sglang:v0.5";
        } else if (role.name == "router") {
            role.runtime = config::RuntimeKind::Docker;
            role.container.cli = "docker";
            role.container.image = "registry.local:5000/minilb:1";
        }
    }
    return cluster;
}

std::vector<std::string> node_names(const std::vector<NodeImages>& plan) {
    std::vector<std::string> names;
    for (const auto& entry : plan) names.push_back(entry.node.name);
    return names;
}

TEST(PullPlan, EveryDockerRoleImageOnItsNodesOnceEach) {
    const auto plan = plan_pull(container_cluster());
    ASSERT_EQ(plan.size(), 8u);  // n1 has the master (process) but also prefill
    EXPECT_THAT(plan[0].images, ElementsAre(ImageRef{"registry.local:5000/sglang:v0.5", "podman"}));
    // n5: decode and the router, two images with their own CLIs.
    EXPECT_EQ(plan[4].node.name, "n5");
    EXPECT_THAT(plan[4].images, ElementsAre(ImageRef{"registry.local:5000/sglang:v0.5", "podman"},
                                            ImageRef{"registry.local:5000/minilb:1", "docker"}));
}

TEST(PullPlan, TheSameImageUnderAnotherCliIsAnotherPull) {
    auto cluster = container_cluster();
    for (auto& role : cluster.roles)
        if (role.name == "decode") role.container.cli = "docker";
    for (auto& role : cluster.roles)
        if (role.name == "decode") role.nodes = {"n1"};
    const auto plan = plan_pull(cluster);
    EXPECT_THAT(plan[0].images, ElementsAre(ImageRef{"registry.local:5000/sglang:v0.5", "podman"},
                                            ImageRef{"registry.local:5000/sglang:v0.5", "docker"}));
}

TEST(PullPlan, ProcessRolesPullNothing) {
    EXPECT_TRUE(plan_pull(pdctl::testing::sample_cluster()).empty());
}

TEST(PullPlan, RoleAndNodeFiltersNarrowThePlan) {
    const auto cluster = container_cluster();
    EXPECT_THAT(node_names(plan_pull(cluster, {{"router"}, {}})), ElementsAre("n5"));
    EXPECT_THAT(node_names(plan_pull(cluster, {{}, {"n2", "n7"}})), ElementsAre("n2", "n7"));
    const auto both = plan_pull(cluster, {{"prefill"}, {"n3", "n6"}});
    ASSERT_EQ(both.size(), 1u);
    EXPECT_EQ(both[0].node.name, "n3");
    EXPECT_TRUE(plan_pull(cluster, {{"mooncake-master"}, {}}).empty());
    EXPECT_THAT(unknown_names(cluster, {{"prefil", "router"}, {"n9"}}),
                ElementsAre("role 'prefil'", "node 'n9'"));
    EXPECT_TRUE(unknown_names(cluster, {{"router"}, {"n1"}}).empty());
}

TEST(PullCommands, PullAndInspectAreArgvQuotedByJoinCommand) {
    const ImageRef ref{"registry.local:5000/sglang:v0.5", "/usr/bin/podman"};
    const auto pull = pull_command(ref, std::chrono::minutes(60));
    EXPECT_THAT(pull.argv, ElementsAre("/usr/bin/podman", "pull", "registry.local:5000/sglang:v0.5"));
    EXPECT_EQ(pull.timeout, std::chrono::minutes(60));
    const auto inspect = image_id_command(ref);
    EXPECT_THAT(inspect.argv, ElementsAre("/usr/bin/podman", "image", "inspect", "--format", "{{.Id}}",
                                          "registry.local:5000/sglang:v0.5"));
    EXPECT_EQ(util::join_command(inspect.argv),
              "/usr/bin/podman image inspect --format '{{.Id}}' registry.local:5000/sglang:v0.5");
}

TEST(PullCommands, ImageIdsOfDockerAndPodmanAreReadAndShortened) {
    const std::string hex = "3f2a9c1b7e4d0011223344556677889900aabbccddeeff00112233445566778899";
    EXPECT_EQ(parse_image_id("sha256:" + hex + "\n"), "sha256:" + hex);  // docker
    EXPECT_EQ(parse_image_id(hex + "\n"), hex);                          // podman
    EXPECT_EQ(parse_image_id(""), "");
    EXPECT_EQ(parse_image_id("Error: no such image\n"), "");
    EXPECT_EQ(short_id("sha256:" + hex), "3f2a9c1b7e4d");
    EXPECT_EQ(short_id(hex), "3f2a9c1b7e4d");
}

TEST(PullCommands, StderrTailKeepsTheLastLinesThatSayWhy) {
    const std::string err =
        "Trying to pull 10.77.0.254:5000/x:y...\n"
        "Error: initializing source docker://10.77.0.254:5000/x:y: reading manifest y in "
        "10.77.0.254:5000/x: manifest unknown: manifest unknown\n\n";
    EXPECT_EQ(
        stderr_tail(err),
        "Trying to pull 10.77.0.254:5000/x:y... | Error: initializing source docker://10.77.0.254:5000/x:y: "
        "reading manifest y in 10.77.0.254:5000/x: manifest unknown: manifest unknown");
    EXPECT_EQ(stderr_tail("a\nb\nc\nd\n", 2), "c | d");
    const auto cut = stderr_tail(std::string(1000, 'x'), 3, 50);
    EXPECT_EQ(cut.size(), 53u);
    EXPECT_EQ(cut.substr(0, 3), "...");
}

TEST(PullIds, TheMajorityIdWinsAndEveryOtherNodeIsNamed) {
    const ImageRef ref{"img", "podman"};
    const std::vector<NodeId> ids = {{"n1", "aaa"}, {"n2", "bbb"}, {"n3", "aaa"}, {"n4", ""}, {"n5", "ccc"}};
    EXPECT_EQ(majority_id(ids), "aaa");
    const auto differ = mismatches(ref, ids);
    ASSERT_EQ(differ.size(), 2u);
    EXPECT_EQ(differ[0].node, "n2");
    EXPECT_EQ(differ[0].id, "bbb");
    EXPECT_EQ(differ[0].majority, "aaa");
    EXPECT_EQ(differ[1].node, "n5");
}

TEST(PullIds, ATieGoesToTheFirstNodeAndFailedNodesTakeNoPart) {
    const ImageRef ref{"img", "podman"};
    EXPECT_EQ(majority_id({{"n1", "bbb"}, {"n2", "aaa"}}), "bbb");
    EXPECT_TRUE(mismatches(ref, {{"n1", "aaa"}, {"n2", ""}, {"n3", "aaa"}}).empty());
    EXPECT_EQ(majority_id({{"n1", ""}}), "");
}

}  // namespace
}  // namespace pdctl::pull
