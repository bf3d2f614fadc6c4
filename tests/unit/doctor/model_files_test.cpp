// FILE002: model directories listed on each node and compared (doctor/model_files.hpp); the listing
// script runs for real here, on a directory this test makes.
#include "pdctl/doctor/model_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pdctl/exec/local_executor.hpp"

namespace pdctl::doctor {
namespace {

using ::testing::HasSubstr;

ModelListing listing(std::map<std::string, std::uint64_t> files) {
    return {true, std::move(files)};
}

const std::map<std::string, std::uint64_t> kShards = {{"config.json", 1200},
                                                      {"model-00001-of-00002.safetensors", 5'000'000'000},
                                                      {"model-00002-of-00002.safetensors", 4'000'000'000}};

TEST(ModelFiles, AShardMissingOnOneNodeIsNamedWithTheNodesThatHaveIt) {
    auto without = kShards;
    without.erase("model-00002-of-00002.safetensors");
    const auto n1 = listing(kShards), n2 = listing(kShards), n3 = listing(without);
    const auto problems = compare_model_files(
        "/data/m", {{"n1", "prefill", &n1}, {"n2", "prefill", &n2}, {"n3", "decode", &n3}});
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].node, "n3");
    EXPECT_EQ(problems[0].role, "decode");
    EXPECT_EQ(
        problems[0].message,
        "1 model file missing from /data/m: model-00002-of-00002.safetensors (3.7 GiB; n1, n2 have it)");
}

TEST(ModelFiles, AShardCutShortIsNamedAndATieGoesToTheLargerCopy) {
    auto cut = kShards;
    cut["model-00001-of-00002.safetensors"] = 1'000'000'000;
    const auto n1 = listing(kShards), n2 = listing(cut);
    const auto problems = compare_model_files("/data/m", {{"n1", "p", &n1}, {"n2", "p", &n2}});
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].node, "n2");
    EXPECT_THAT(problems[0].message, HasSubstr("1 model file of /data/m differs in size (a copy cut short?): "
                                               "model-00001-of-00002.safetensors is 953.7 MiB where 1 of 2 "
                                               "nodes have 4.7 GiB"));
}

TEST(ModelFiles, ADirectoryOnNoNodeIsNotComparedAndOneMissingWhereOthersHaveItIs) {
    const ModelListing absent;
    EXPECT_TRUE(compare_model_files("/m", {{"n1", "p", &absent}, {"n2", "p", &absent}}).empty());
    const auto n1 = listing(kShards);
    const auto problems = compare_model_files("/m", {{"n1", "p", &n1}, {"n2", "p", &absent}});
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].message, "model directory /m missing (present on n1)");
    const auto same = listing(kShards);
    EXPECT_TRUE(compare_model_files("/m", {{"n1", "p", &n1}, {"n2", "p", &same}}).empty());
}

TEST(ModelFiles, TheScriptListsFilesBelowLinksAndSaysWhatIsMissing) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("pdctl-model-files-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "blobs");
    std::filesystem::create_directories(dir / "snapshot" / "sub");
    std::ofstream(dir / "blobs" / "abc") << "0123456789";
    std::filesystem::create_symlink(dir / "blobs" / "abc", dir / "snapshot" / "sub" / "weights.bin");
    std::ofstream(dir / "snapshot" / "config.json") << "{}";
    const auto answer = exec::LocalExecutor().run(
        config::Node{}, model_files_command({(dir / "snapshot").string(), (dir / "nowhere").string()}));
    ASSERT_TRUE(answer.ok()) << answer.err;
    const auto parsed = parse_model_files(answer.out);
    ASSERT_EQ(parsed.size(), 2U) << answer.out;
    const auto& snapshot = parsed.at((dir / "snapshot").string());
    EXPECT_TRUE(snapshot.present);
    EXPECT_EQ(snapshot.files,
              (std::map<std::string, std::uint64_t>{{"config.json", 2}, {"sub/weights.bin", 10}}));
    EXPECT_FALSE(parsed.at((dir / "nowhere").string()).present);
    EXPECT_GT(parse_node_memory(answer.out), 0U);  // this machine's MemTotal
    // An answer cut off before its end says nothing.
    EXPECT_TRUE(parse_model_files("model\t/m\tpresent\nfile\ta\t1\n").empty());
    std::filesystem::remove_all(dir);
}

TEST(ModelFiles, ModelsLargerThanTheNodesMemoryAreSaidWithBothSizes) {
    std::map<std::string, ModelListing> listings;
    listings["/m/a"] = ModelListing{true, {{"x.safetensors", 6ULL << 30}}};
    listings["/m/b"] = ModelListing{true, {{"y.safetensors", 3ULL << 30}}};
    listings["/m/gone"] = ModelListing{false, {}};
    EXPECT_FALSE(model_memory_problem(listings, 16ULL << 30));
    EXPECT_FALSE(model_memory_problem(listings, 0));  // unknown memory: nothing said
    const auto problem = model_memory_problem(listings, 8ULL << 30);
    ASSERT_TRUE(problem);
    EXPECT_EQ(
        *problem,
        "the models it loads (/m/a, /m/b: 9.0 GiB) are larger than its memory (8.0 GiB): its page cache "
        "cannot hold them, so every start reads them from disk and --prewarm reads them for nothing");
}

}  // namespace
}  // namespace pdctl::doctor
