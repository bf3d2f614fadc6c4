// The kernel cache of a unit, run for real: the start script (_cache_prepare.sh, through the process
// runtime's start) keeps a cache whose key matches, sets aside one of another key and names what
// changed, brings a set-aside cache back when the key returns; status and clear read and remove them.
#include "pdctl/runtime/kernel_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "pdctl/exec/local_executor.hpp"
#include "pdctl/runtime/process_runtime.hpp"
#include "unit/support/process_unit_ended.hpp"

namespace pdctl::runtime {
namespace {

namespace fs = std::filesystem;

TEST(CacheOutcome, ReadsTheStartsCacheLineBeforeTheRuntimesOwn) {
    const auto hit =
        parse_cache_outcome("cache hit 26891acb3e5166fc /var/cache/pdctl/c-prefill; started u pid 42");
    ASSERT_TRUE(hit);
    EXPECT_TRUE(hit->hit);
    EXPECT_EQ(hit->key, "26891acb3e5166fc");
    EXPECT_EQ(hit->dir, "/var/cache/pdctl/c-prefill");
    EXPECT_EQ(hit->set_aside, "");

    const auto miss = parse_cache_outcome(
        "cache miss 1111222233334444 /c/d; set aside 26891acb3e5166fc: image-id sha256:aa -> "
        "sha256:bb\nabc123");
    ASSERT_TRUE(miss);
    EXPECT_FALSE(miss->hit);
    EXPECT_EQ(miss->set_aside, "26891acb3e5166fc");
    EXPECT_EQ(miss->why, "image-id sha256:aa -> sha256:bb");

    EXPECT_FALSE(parse_cache_outcome("started u pid 42"));
    EXPECT_FALSE(parse_cache_outcome("cache maybe 1 /d"));
    EXPECT_FALSE(parse_cache_outcome("cache hit"));
}

TEST(CacheStatus, ParsesLiveAndSetAsideCaches) {
    const auto caches = parse_cache_status(
        "now 1000\n"
        "live /c/a 26891acb3e5166fc 4096 900 hit 990\n"
        "stale /c/a 1111222233334444 2048 950\n"
        "live /c/b - 0 0 - 0\n");
    EXPECT_EQ(caches.now_epoch, 1000);
    ASSERT_EQ(caches.dirs.size(), 2u);
    EXPECT_EQ(caches.dirs[0].key, "26891acb3e5166fc");
    EXPECT_EQ(caches.dirs[0].bytes, 4096);
    EXPECT_EQ(caches.dirs[0].last_result, "hit");
    EXPECT_EQ(caches.dirs[0].last_start_epoch, 990);
    ASSERT_EQ(caches.dirs[0].set_aside.size(), 1u);
    EXPECT_EQ(caches.dirs[0].set_aside[0].key, "1111222233334444");
    EXPECT_EQ(caches.dirs[1].key, "");
    EXPECT_EQ(caches.dirs[1].last_result, "");
}

class CachePrepareScript : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("pdctl-kernel-cache-" + std::to_string(::getpid()));
        fs::remove_all(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    // Starts a unit whose program "compiles" a kernel into its cache directory unless one is there,
    // waits for it to end, and returns what the start said.
    std::string start(const std::string& program_part) {
        UnitSpec unit;
        unit.name = "u";
        unit.cluster = "c";
        unit.role = "prefill";
        unit.node = "n1";
        unit.cache.dir = (root_ / "cache" / "c-prefill").string();
        unit.cache.parts = {"program=" + program_part, "image=none"};
        unit.program.argv = {"sh", "-c", "[ -f \"$0/kernel\" ] || echo compiled > \"$0/kernel\"",
                             unit.cache.dir};
        const ProcessRuntime runtime(RuntimeSpec{}, (root_ / "state").string());
        const auto answer = executor_.run(node_, runtime.start(unit));
        EXPECT_TRUE(answer.ok()) << answer.err;
        // The program ends by itself at once; the next start waits for its unit to be gone.
        EXPECT_TRUE(pdctl::testing::process_unit_ends_within(root_ / "state", "u", std::chrono::seconds(10)));
        return answer.out;
    }

    fs::path root_;
    exec::LocalExecutor executor_;
    config::Node node_{"n1", "127.0.0.1", {}, {}, {}};
};

TEST_F(CachePrepareScript, KeepsAMatchingCacheSetsAsideAnotherAndBringsItBack) {
    const auto dir = root_ / "cache" / "c-prefill";
    const auto first = parse_cache_outcome(start("server --tp 8"));
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->hit);  // nothing compiled yet
    EXPECT_EQ(first->dir, dir.string());
    EXPECT_TRUE(fs::exists(dir / "kernel"));

    const auto second = parse_cache_outcome(start("server --tp 8"));
    ASSERT_TRUE(second);
    EXPECT_TRUE(second->hit);
    EXPECT_EQ(second->key, first->key);

    // Another flag that changes kernels: another key; the old cache is set aside, named, not loaded.
    const auto changed = parse_cache_outcome(start("server --tp 16"));
    ASSERT_TRUE(changed);
    EXPECT_FALSE(changed->hit);
    EXPECT_NE(changed->key, first->key);
    EXPECT_EQ(changed->set_aside, first->key);
    EXPECT_EQ(changed->why, "program server --tp 8 -> server --tp 16");
    EXPECT_TRUE(fs::exists(root_ / "cache" / ("c-prefill.stale/" + first->key) / "kernel"));

    // Back to the first config (a rollback): its cache returns and hits.
    const auto back = parse_cache_outcome(start("server --tp 8"));
    ASSERT_TRUE(back);
    EXPECT_TRUE(back->hit);
    EXPECT_EQ(back->key, first->key);
    EXPECT_EQ(back->set_aside, changed->key);

    const auto status = parse_cache_status(executor_.run(node_, cache_status_command({dir.string()})).out);
    ASSERT_EQ(status.dirs.size(), 1u);
    EXPECT_EQ(status.dirs[0].key, first->key);
    EXPECT_EQ(status.dirs[0].last_result, "hit");
    ASSERT_EQ(status.dirs[0].set_aside.size(), 1u);
    EXPECT_EQ(status.dirs[0].set_aside[0].key, changed->key);

    const auto aside = executor_.run(node_, cache_clear_command({dir.string()}, true));
    ASSERT_TRUE(aside.ok()) << aside.err;
    EXPECT_GT(parse_cleared_bytes(aside.out), 0);
    EXPECT_TRUE(fs::exists(dir / "kernel"));
    EXPECT_FALSE(fs::exists(root_ / "cache" / ("c-prefill.stale/" + changed->key)));
    const auto all = executor_.run(node_, cache_clear_command({dir.string()}, false));
    ASSERT_TRUE(all.ok()) << all.err;
    EXPECT_FALSE(fs::exists(dir));
}

TEST_F(CachePrepareScript, APackedCacheUnpacksOnAPeerOfTheSameKeyOnlyAndSetsItsOwnAside) {
    const auto first = parse_cache_outcome(start("server --tp 8"));
    ASSERT_TRUE(first);
    CacheSpec source;
    source.dir = (root_ / "cache" / "c-prefill").string();
    source.parts = {"program=server --tp 8", "image=none"};
    const auto peek = parse_cache_peek(executor_.run(node_, cache_peek_command(source, "")).out);
    EXPECT_EQ(peek.want, first->key);
    EXPECT_EQ(peek.have, first->key);
    EXPECT_TRUE(peek.holds_wanted());

    const auto archive = (root_ / "spread.tar").string();
    const auto packed = executor_.run(node_, cache_pack_command(source.dir, archive));
    ASSERT_TRUE(packed.ok()) << packed.err;
    const auto [bytes, sha] = parse_packed(packed.out);
    EXPECT_EQ(bytes, std::filesystem::file_size(archive));
    EXPECT_EQ(sha.size(), 64U);

    // A peer (another directory) holding a cache of another key: set aside, then the archive in place.
    CacheSpec peer = source;
    peer.dir = (root_ / "peer" / "c-prefill").string();
    std::filesystem::create_directories(peer.dir);
    std::ofstream(peer.dir + "/.pdctl-fingerprint") << "key=00000000deadbeef\nprogram=old\n";
    std::ofstream(peer.dir + "/old-kernel") << "old";
    const auto copy = (root_ / "peer.tar").string();
    std::filesystem::copy_file(archive, copy);
    const auto unpacked = executor_.run(node_, cache_unpack_command(peer, "", copy));
    ASSERT_TRUE(unpacked.ok()) << unpacked.err;
    EXPECT_EQ(unpacked.out, "unpacked " + first->key + " " + peer.dir + "; set aside 00000000deadbeef\n");
    EXPECT_TRUE(std::filesystem::exists(peer.dir + "/kernel"));
    EXPECT_TRUE(std::filesystem::exists(peer.dir + ".stale/00000000deadbeef/old-kernel"));
    EXPECT_FALSE(std::filesystem::exists(copy));

    // A peer whose own key differs (another image, driver, flag) refuses the archive.
    CacheSpec other = peer;
    other.dir = (root_ / "other" / "c-prefill").string();
    other.parts = {"program=server --tp 16", "image=none"};
    std::filesystem::copy_file(archive, copy);
    const auto refused = executor_.run(node_, cache_unpack_command(other, "", copy));
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.err.find("the cache is of key " + first->key), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(other.dir + "/kernel"));
}

}  // namespace
}  // namespace pdctl::runtime
