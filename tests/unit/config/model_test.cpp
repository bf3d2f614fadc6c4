#include "pdctl/config/model.hpp"

#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::config {
namespace {

TEST(ConfigModel, FindsNodesAndRolesByName) {
    Cluster cluster;
    cluster.nodes = {{"n1", "10.0.0.1", {}, {}, {}}, {"n2", "10.0.0.2", {}, {}, {}}};
    cluster.roles.resize(2);
    cluster.roles[0].name = "prefill";
    cluster.roles[1].name = "decode";
    ASSERT_NE(cluster.find_node("n2"), nullptr);
    EXPECT_EQ(cluster.find_node("n2")->address, "10.0.0.2");
    EXPECT_EQ(cluster.find_node("n3"), nullptr);
    EXPECT_EQ(cluster.find_role("decode"), &cluster.roles[1]);
    EXPECT_EQ(cluster.find_role("router"), nullptr);
}

TEST(ConfigModel, NamesAreSpelledAsInTheYaml) {
    EXPECT_EQ(to_string(RoleKind::MooncakeMaster), "mooncake-master");
    EXPECT_EQ(to_string(RoleKind::Sglang), "sglang");
    EXPECT_EQ(to_string(RoleKind::Router), "router");
    EXPECT_EQ(to_string(RoleKind::Generic), "generic");
    EXPECT_EQ(to_string(SglangMode::Prefill), "prefill");
    EXPECT_EQ(to_string(SglangMode::Decode), "decode");
    EXPECT_EQ(to_string(RuntimeKind::Docker), "docker");
    EXPECT_EQ(to_string(RuntimeKind::Process), "process");
    EXPECT_EQ(to_string(ExecutorKind::Ssh), "ssh");
    EXPECT_EQ(to_string(ExecutorKind::Local), "local");
}

TEST(ConfigFileSource, ResolvesRelativeToTheDirectoryOfTheReferencingFile) {
    const MemoryFileSource files(std::map<std::string, std::string>{});
    EXPECT_EQ(files.resolve("/etc/pdctl/pdctl.yaml", "prefill.env"), "/etc/pdctl/prefill.env");
    EXPECT_EQ(files.resolve("profiles/k3/pdctl.yaml", "../common/config.env"),
              "profiles/k3/../common/config.env");
    EXPECT_EQ(files.resolve("pdctl.yaml", "prefill.env"), "prefill.env");
    EXPECT_EQ(files.resolve("/etc/pdctl/pdctl.yaml", "/abs/x.env"), "/abs/x.env");
    EXPECT_EQ(files.resolve("<embedded>/pdctl.yaml", "prefill.env"), "<embedded>/prefill.env");
    EXPECT_EQ(files.resolve("/etc/pdctl.yaml", "~/x.env"), "/etc/~/x.env") << "no ~ expansion here";
}

TEST(ConfigFileSource, MemoryReadsOnlyWhatItHolds) {
    const MemoryFileSource files(std::map<std::string, std::string>{{"/c/a.env", "A=1\n"}});
    EXPECT_EQ(files.read("/c/a.env"), "A=1\n");
    EXPECT_EQ(files.read("/c/b.env"), std::nullopt);
}

TEST(ConfigFileSource, DiskReadsWholeFilesAndNotDirectories) {
    const DiskFileSource files;
    const auto content = files.read(pdctl::testing::source_dir() + "/include/pdctl/config/model.hpp");
    ASSERT_TRUE(content.has_value());
    EXPECT_NE(content->find("struct Cluster"), std::string::npos);
    EXPECT_NE(content->find("}  // namespace pdctl::config"), std::string::npos);
    EXPECT_EQ(files.read(pdctl::testing::source_dir() + "/include"), std::nullopt);
    EXPECT_EQ(files.read(pdctl::testing::source_dir() + "/no/such/file"), std::nullopt);
}

}  // namespace
}  // namespace pdctl::config
