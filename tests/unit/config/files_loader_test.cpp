// `files:`: what `pdctl push` distributes, with every mistake reported at its line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace pdctl::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kMinimalCluster;
using testing::load;
using testing::load_error;

std::string with_files(const std::string& files) {
    return std::string(kMinimalCluster) + "files:\n" + files;
}

TEST(ConfigFiles, AbsentMeansNothingToPush) {
    EXPECT_TRUE(load(kMinimalCluster).files.empty());
}

TEST(ConfigFiles, ReadsEntriesWithSourcesRelativeToTheClusterFile) {
    const auto cluster = load(with_files(
        "  - {source: wheels/mooncake.whl, dest: /data/wheels/mooncake.whl, roles: [prefill, decode]}\n"
        "  - {source: /opt/patch.py, dest: /tmp/patch.py, mode: \"0755\", nodes: n2}\n"
        "  - {source: x, dest: /x, mode: 600}\n"));
    ASSERT_EQ(cluster.files.size(), 3u);
    EXPECT_EQ(cluster.files[0].source, "/c/wheels/mooncake.whl");
    EXPECT_EQ(cluster.files[0].dest, "/data/wheels/mooncake.whl");
    EXPECT_EQ(cluster.files[0].mode, 0644);
    EXPECT_THAT(cluster.files[0].roles, ElementsAre("prefill", "decode"));
    EXPECT_EQ(cluster.files[1].source, "/opt/patch.py");
    EXPECT_EQ(cluster.files[1].mode, 0755);
    EXPECT_THAT(cluster.files[1].nodes, ElementsAre("n2"));
    EXPECT_EQ(cluster.files[2].mode, 0600);
    EXPECT_EQ(cluster.files[0].where.line, 23);
    EXPECT_EQ(cluster.files[0].source_where.line, 23);
}

TEST(ConfigFiles, EveryMistakeIsReportedAtItsLine) {
    const auto error =
        load_error(with_files("  - {source: a, dest: relative/path}\n"
                              "  - {source: b, dest: /dir/}\n"
                              "  - {source: c, dest: /c, mode: \"0999\"}\n"
                              "  - {source: d, dest: /d, roles: [prefil]}\n"
                              "  - {source: e, dest: /e, nodes: [n9]}\n"
                              "  - {dest: /f}\n"
                              "  - {source: g, dest: /d, owner: root}\n"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:23:23: error: files[0].dest: must be an absolute path"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:24:23: error: files[1].dest: names a directory"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:25:33: error: files[2].mode: invalid mode `0999`"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:26:35: error: files[3].roles[0]: no role named `prefil`"));
    EXPECT_THAT(error, HasSubstr("did you mean `prefill`?"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:27:35: error: files[4].nodes[0]: no node named `n9`"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:28:5: error: files[5]: missing required key `source`"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:29:23: error: files[6].dest: duplicate dest `/d`"));
    EXPECT_THAT(error, HasSubstr("first given at line 26"));
    EXPECT_THAT(error, HasSubstr("pdctl.yaml:29:27: error: files[6].owner: unknown key"));
}

TEST(ConfigFiles, MustBeAList) {
    EXPECT_THAT(load_error(std::string(kMinimalCluster) + "files: {source: a}\n"),
                HasSubstr("files: expected a list"));
}

}  // namespace
}  // namespace pdctl::config
