// The cluster files shipped in profiles/ must always load; the local one is also embedded.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "pdctl/config/diagnostics.hpp"
#include "pdctl/config/embedded_profile.hpp"
#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::config {
namespace {

Cluster load_repo_profile(const std::string& relative) {
    return load_cluster(std::string(pdctl::testing::source_dir()) + "/" + relative, DiskFileSource());
}

void expect_sane(const Cluster& cluster) {
    EXPECT_FALSE(cluster.name.empty());
    EXPECT_FALSE(cluster.nodes.empty());
    EXPECT_FALSE(cluster.roles.empty());
    for (const auto& role : cluster.roles) {
        for (const auto& node : role.nodes) EXPECT_NE(cluster.find_node(node), nullptr) << role.name;
        for (const auto& dep : role.depends_on) EXPECT_NE(cluster.find_role(dep), nullptr) << role.name;
    }
}

// Skips while the profile is not in the repository (it is written alongside this code).
void expect_loads(const std::string& relative) {
    if (!std::filesystem::exists(std::string(pdctl::testing::source_dir()) + "/" + relative)) {
        GTEST_SKIP() << relative << " is not in the repository yet";
    }
    try {
        expect_sane(load_repo_profile(relative));
    } catch (const ConfigError& error) {
        FAIL() << error.what();
    }
}

TEST(ConfigRepoProfiles, LocalLoads) {
    expect_loads("profiles/local/pdctl.yaml");
}

TEST(ConfigRepoProfiles, Kimi3Pro6000PdLoads) {
    expect_loads("profiles/kimi3-pro6000-pd/pdctl.yaml");
}

TEST(ConfigRepoProfiles, PdProfileKeepsTheRunbookOrder) {
    const std::string path =
        std::string(pdctl::testing::source_dir()) + "/profiles/kimi3-pro6000-pd/pdctl.yaml";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "profiles/kimi3-pro6000-pd is not in the repository yet";
    Cluster cluster;
    try {
        cluster = load_cluster(path, DiskFileSource());
    } catch (const ConfigError& error) {
        FAIL() << error.what();
    }
    // Hard rule 2 of the runbook: every decode group starts after every prefill group.
    for (const auto& role : cluster.roles) {
        if (role.kind != RoleKind::Sglang || role.mode != SglangMode::Decode || role.depends_on_explicit)
            continue;
        for (const auto& other : cluster.roles) {
            if (other.kind != RoleKind::Sglang || other.mode != SglangMode::Prefill) continue;
            EXPECT_NE(std::find(role.depends_on.begin(), role.depends_on.end(), other.name),
                      role.depends_on.end())
                << role.name << " must depend on " << other.name;
        }
    }
}

// `pdctl start` with no file loads the embedded copy of profiles/local the same way.
TEST(ConfigRepoProfiles, EmbeddedLocalProfileLoads) {
    const auto& embedded = embedded_local_profile();
    if (embedded.find("pdctl.yaml") == embedded.end())
        GTEST_SKIP() << "profiles/local is not in the repository yet";
    std::map<std::string, std::string> files;
    const std::string directory = std::filesystem::path(kEmbeddedConfigPath).parent_path().string();
    for (const auto& [name, content] : embedded) files[directory + "/" + name] = content;
    try {
        expect_sane(load_cluster(kEmbeddedConfigPath, MemoryFileSource(files)));
    } catch (const ConfigError& error) {
        FAIL() << error.what();
    }
}

}  // namespace
}  // namespace pdctl::config
