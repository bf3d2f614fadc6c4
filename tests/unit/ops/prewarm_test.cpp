// `start --prewarm`: which directories each node reads (its sglang ranks' --model-path, each once),
// the node script run for real against a file, and the notes the run ends with.
#include "pdctl/ops/prewarm.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pdctl/exec/local_executor.hpp"
#include "pdctl/plan/builder.hpp"
#include "unit/config/config_test_util.hpp"

namespace pdctl::ops {
namespace {

TEST(Prewarm, EachNodeReadsTheModelDirectoriesOfItsSglangRanksOnce) {
    const auto cluster = config::testing::load(R"(cluster: c
defaults:
  container: {image: img}
nodes:
  - {name: n1, address: 10.0.0.1}
  - {name: n2, address: 10.0.0.2}
roles:
  mooncake-master: {kind: mooncake-master, nodes: [n1]}
  prefill: {kind: sglang, mode: prefill, nodes: [n1, n2], model_path: /models/k3}
  decode: {kind: sglang, mode: decode, nodes: [n2], model_path: /models/k3}
  router: {kind: router, nodes: [n2]}
)");
    const auto dirs = model_dirs_by_node(plan::build_plan(cluster));
    EXPECT_EQ(dirs, (std::map<std::string, std::vector<std::string>>{{"n1", {"/models/k3"}},
                                                                     {"n2", {"/models/k3"}}}));
}

TEST(Prewarm, TheNodeScriptReadsTheFilesAndSaysWhatIsResident) {
    const auto dir = std::filesystem::temp_directory_path() / ("pdctl-prewarm-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "m");
    std::ofstream(dir / "m" / "shard") << std::string(1 << 20, 'x');
    const auto answer = exec::LocalExecutor().run(
        config::Node{}, runtime::prewarm_command({(dir / "m").string(), (dir / "nowhere").string()}));
    ASSERT_TRUE(answer.ok()) << answer.err;
    const auto read = runtime::parse_prewarm(answer.out);
    EXPECT_GT(read.mem_total, 0U) << answer.out;
    ASSERT_EQ(read.dirs.size(), 2U) << answer.out;
    EXPECT_TRUE(read.dirs[0].present);
    EXPECT_EQ(read.dirs[0].files, 1U);
    EXPECT_EQ(read.dirs[0].bytes, 1U << 20);
    // Just read (and written): in memory, by fincore's account (util-linux, on every Debian).
    EXPECT_EQ(read.dirs[0].resident, 1 << 20) << answer.out;
    EXPECT_FALSE(read.dirs[1].present);
    std::filesystem::remove_all(dir);
}

TEST(Prewarm, TheNotesSayWhatWasReadAndWhenTheMemoryCannotHoldIt) {
    NodePrewarmResult fits{
        "n1", "", {64ULL << 30, 60ULL << 30, {{"/m", true, 3, 2ULL << 30, 2ULL << 30, 1.5}}}};
    NodePrewarmResult too_big{
        "n2", "", {8ULL << 30, 6ULL << 30, {{"/m", true, 3, 10ULL << 30, 5ULL << 30, 9.0}}}};
    NodePrewarmResult down{"n3", "unreachable: connection refused", {}};
    const auto notes = prewarm_notes({fits, too_big, down});
    ASSERT_EQ(notes.size(), 4U);
    EXPECT_EQ(notes[0], "prewarm n1: /m 2.0 GiB in 3 files read in 1.5s, 2.0 GiB resident (100 %)");
    EXPECT_EQ(notes[1], "prewarm n2: /m 10.0 GiB in 3 files read in 9.0s, 5.0 GiB resident (50 %)");
    EXPECT_NE(
        notes[2].find("prewarm n2: the models (10.0 GiB) are larger than the memory available (6.0 GiB of "
                      "8.0 GiB)"),
        std::string::npos)
        << notes[2];
    EXPECT_EQ(notes[3], "prewarm n3: unreachable: connection refused");
}

}  // namespace
}  // namespace pdctl::ops
