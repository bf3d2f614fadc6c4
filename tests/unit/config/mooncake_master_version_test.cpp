// The Mooncake release of a mooncake-master role: `version:`, else what its BOOTSTRAP installs, else a
// Mooncake image's tag; and which mooncake_master flags each release has (read from upstream
// mooncake-store/src/master.cpp at each tag).
#include "pdctl/config/mooncake_master_version.hpp"

#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "pdctl/config/mooncake_master_flags.hpp"

namespace pdctl::config::testing {
namespace {

MooncakeVersion v(const std::string& text) {
    const auto version = parse_mooncake_version(text);
    EXPECT_TRUE(version) << text;
    return version.value_or(MooncakeVersion{});
}

TEST(MooncakeMasterFlags, EachFlagExistsFromItsReleaseOn) {
    // --rpc_port replaced --port in 0.3.4.post1 (Mooncake #530); --port stays, deprecated.
    EXPECT_FALSE(mooncake_master_has(v("0.3.4"), "rpc_port"));
    EXPECT_TRUE(mooncake_master_has(v("0.3.4.post1"), "rpc_port"));
    EXPECT_TRUE(mooncake_master_has(v("0.3.12.post1"), "rpc_port"));
    EXPECT_TRUE(mooncake_master_has(v("0.3.12.post1"), "port"));
    const auto* port = find_mooncake_master_flag("port");
    ASSERT_NE(port, nullptr);
    EXPECT_EQ(port->deprecated_for, "rpc_port");
    EXPECT_EQ(port->deprecated_since, v("0.3.4.post1"));
    // --metrics_host is on main only (Mooncake #3318): no release up to 0.3.12.post1 has it.
    EXPECT_FALSE(mooncake_master_has(v("0.3.12.post1"), "metrics_host"));
    EXPECT_FALSE(find_mooncake_master_flag("metrics_host")->since);
    EXPECT_TRUE(mooncake_master_has(v("0.3.13"), "metrics_host"));
    // Removed, and renamed.
    EXPECT_EQ(presence(*find_mooncake_master_flag("enable_gc"), v("0.3.5")), FlagPresence::Has);
    EXPECT_EQ(presence(*find_mooncake_master_flag("enable_gc"), v("0.3.6")), FlagPresence::Removed);
    EXPECT_EQ(presence(*find_mooncake_master_flag("conf_path"), v("0.3.6.post1")), FlagPresence::Removed);
    EXPECT_EQ(presence(*find_mooncake_master_flag("config_path"), v("0.3.6")), FlagPresence::NotYet);
    EXPECT_EQ(presence(*find_mooncake_master_flag("rpc_interface"), v("0.3.10.post1")), FlagPresence::NotYet);
    EXPECT_EQ(presence(*find_mooncake_master_flag("rpc_interface"), v("0.3.10.post2")), FlagPresence::Has);
    // Flags the table does not know (glog's, gflags' own) are never judged.
    EXPECT_EQ(find_mooncake_master_flag("logtostderr"), nullptr);
    EXPECT_TRUE(mooncake_master_has(v("0.3.0"), "logtostderr"));
    EXPECT_EQ(to_string(v("0.3.12.post1")), "0.3.12.post1");
    EXPECT_EQ(to_string(v("0.3.4")), "0.3.4");
}

// kMinimalCluster with `extra` as the master's own keys, and its profile.
Role master_with(const std::string& extra, const std::string& profile = "", const std::string& image = "") {
    std::string yaml = kMinimalCluster;
    const std::string key = "    kind: mooncake-master\n";
    yaml.replace(yaml.find(key), key.size(), key + extra + (profile.empty() ? "" : "    profile: m.env\n"));
    if (!image.empty()) yaml.replace(yaml.find("lmsysorg/sglang:kimi-k3"), 23, image);
    return *load(yaml, {{"/c/m.env", profile}}).find_role("mooncake-master");
}

TEST(MooncakeMasterVersion, VersionKeyWins) {
    const auto role = master_with("    version: 0.3.11.post1\n",
                                  "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.12.post1\"\n");
    EXPECT_EQ(role.mooncake_version, "0.3.11.post1");
    EXPECT_EQ(role.mooncake_version_source, "version:");
}

TEST(MooncakeMasterVersion, TheLastInstallInItsBootstrapIsWhatRuns) {
    const auto role =
        master_with("",
                    "BOOTSTRAP=\"pip install /w/mooncake_transfer_engine-0.3.10-cp312-none-any.whl && "
                    "pip install --no-deps /w/mooncake_transfer_engine_cuda13-0.3.12.post1-cp312-cp312-"
                    "manylinux_2_28_x86_64.whl\"\n");
    EXPECT_EQ(role.mooncake_version, "0.3.12.post1");
    EXPECT_EQ(role.mooncake_version_source,
              "BOOTSTRAP installs "
              "`mooncake_transfer_engine_cuda13-0.3.12.post1-cp312-cp312-manylinux_2_28_x86_64.whl`");
    EXPECT_EQ(master_with("", "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.4\"\n").mooncake_version,
              "0.3.4");
}

TEST(MooncakeMasterVersion, AMooncakeImageTagSaysIt) {
    const auto role = master_with("", "", "kvcacheai/mooncake:v0.3.12.post1");
    EXPECT_EQ(role.mooncake_version, "0.3.12.post1");
    EXPECT_EQ(role.mooncake_version_source, "image kvcacheai/mooncake:v0.3.12.post1");
}

TEST(MooncakeMasterVersion, UnknownWhenTheConfigDoesNotShowIt) {
    // SGLang's image carries some Mooncake, but its tag does not say which.
    EXPECT_EQ(master_with("").mooncake_version, "");
    EXPECT_EQ(master_with("").mooncake_version_source, "");
    // An unpinned install, or a pre-release pdctl cannot order against the flag table.
    EXPECT_EQ(master_with("", "BOOTSTRAP=\"pip install -U mooncake-transfer-engine\"\n").mooncake_version,
              "");
    EXPECT_EQ(
        master_with("", "BOOTSTRAP=\"pip install mooncake-transfer-engine==0.3.13rc1\"\n").mooncake_version,
        "");
    EXPECT_EQ(master_with("", "", "kvcacheai/mooncake:latest").mooncake_version, "");
}

TEST(MooncakeMasterVersion, AWheelInFilesIsOnlyCopiedSoItSaysNothing) {
    std::string yaml = kMinimalCluster;
    yaml +=
        "files:\n  - {source: /w/mooncake_transfer_engine-0.3.12.post1-cp312-none-any.whl, dest: /tmp/m.whl, "
        "roles: [mooncake-master]}\n";
    EXPECT_EQ(load(yaml, {{"/w/mooncake_transfer_engine-0.3.12.post1-cp312-none-any.whl", "x"}})
                  .find_role("mooncake-master")
                  ->mooncake_version,
              "");
}

}  // namespace
}  // namespace pdctl::config::testing
