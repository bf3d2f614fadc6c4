// The kept configs' documents (state/config_store.hpp) and the files a config is read from.
#include "pdctl/state/config_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pdctl/config/file_source.hpp"
#include "pdctl/config/loader.hpp"

namespace pdctl::state::config_store {
namespace {

TEST(ConfigStore, TheSameBundleHasTheSameIdAndReadsBackWhole) {
    Bundle bundle{"/x/pdctl.yaml",
                  {{"/x/pdctl.yaml", "cluster: x\n"}, {"/x/decode.env", "A=1\nweird=\"\\n\xe2\x9c\x93\"\n"}},
                  {{"/x/w.whl", "/data/w.whl", std::string(64, 'a')}}};
    const auto document = to_document(bundle);
    EXPECT_EQ(document, to_document(bundle));
    EXPECT_TRUE(is_bundle_id(bundle_id(document)));
    const auto back = parse_document(document);
    EXPECT_EQ(back.entry, bundle.entry);
    ASSERT_EQ(back.files.size(), 2U);
    EXPECT_EQ(back.files[1].content, bundle.files[1].content);
    ASSERT_EQ(back.pushed.size(), 1U);
    EXPECT_EQ(back.pushed[0].dest, "/data/w.whl");

    bundle.files[1].content += "B=2\n";
    EXPECT_NE(bundle_id(to_document(bundle)), bundle_id(document)) << "one byte more is another config";
}

TEST(ConfigStore, OnlyAHexSha256IsAnIdAndADamagedDocumentIsNamed) {
    EXPECT_TRUE(is_bundle_id(std::string(64, 'f')));
    EXPECT_FALSE(is_bundle_id(std::string(63, 'f')));
    EXPECT_FALSE(is_bundle_id("../../etc/passwd" + std::string(48, 'a')));
    EXPECT_FALSE(is_bundle_id(std::string(64, 'F')));
    EXPECT_THROW(parse_document("[]"), std::runtime_error);
    EXPECT_THROW(parse_document(R"({"entry": "/x", "files": [{"path": 1}]})"), std::runtime_error);
}

TEST(ConfigStore, TheLoaderRecordsEveryFileItReadOnceClusterFileFirst) {
    const config::MemoryFileSource files({{"/x/pdctl.yaml", R"(cluster: x
executor: local
env_files: [config.env]
defaults: {runtime: process}
nodes: [{name: n1, address: 127.0.0.1}]
roles:
  a: {kind: generic, nodes: [n1], command: [sleep, "1"], profile: p.env, health: {path: /, port: 1}}
  b: {kind: generic, nodes: [n1], command: [sleep, "1"], profile: p.env, health: {path: /, port: 2}}
)"},
                                          {"/x/config.env", "X=1\n"},
                                          {"/x/p.env", "Y=2\n"},
                                          {"/x/unused.env", "Z=3\n"}});
    const auto cluster = config::load_cluster("/x/pdctl.yaml", files);
    std::vector<std::string> paths;
    for (const auto& file : cluster.sources) paths.push_back(file.path);
    EXPECT_EQ(paths, (std::vector<std::string>{"/x/pdctl.yaml", "/x/config.env", "/x/p.env"}));
    EXPECT_EQ(cluster.sources[2].content, "Y=2\n");
}

TEST(ConfigStore, TheCommandsCarryTheDocumentOnStdinAndTheIdAsAParameter) {
    const auto id = std::string(64, 'a');
    const auto put = put_command("/var/lib/pdctl/x", id, "{}\n");
    EXPECT_EQ(put.stdin_data, "{}\n");
    EXPECT_EQ(put.argv.back(), id);
    EXPECT_EQ(get_command("/var/lib/pdctl/x", id).argv,
              (std::vector<std::string>{"cat", "/var/lib/pdctl/x/configs/" + id + ".json"}));
}

}  // namespace
}  // namespace pdctl::state::config_store
