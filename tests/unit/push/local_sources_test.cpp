// push/local_sources: the digests computed beside the push are those of the files, in any order of
// asking, and a source that cannot be read throws from its digest alone.
#include "pdctl/push/local_sources.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "pdctl/util/sha256.hpp"
#include "unit/support/script_sandbox.hpp"

namespace pdctl::push {
namespace {

TEST(LocalSources, EachDigestIsItsFilesAndTheSizeIsKnownAtOnce) {
    testing::ScriptSandbox box("local-sources");
    const auto first = box.dir() / "a.bin";
    const auto second = box.dir() / "b.bin";
    box.write(first, std::string(3 * (1 << 20) + 1, 'a'));
    box.write(second, "b\n");
    const LocalSources sources({{first.string(), 3 * (1 << 20) + 1}, {second.string(), 2}});
    const auto& files = sources.files();
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files.at(first.string()).size, 3u * (1 << 20) + 1);
    EXPECT_EQ(files.at(second.string()).sha256.get(), util::sha256_hex("b\n"));  // the later one first
    EXPECT_EQ(files.at(first.string()).sha256.get(), *util::sha256_file_hex(first.string()));
}

TEST(LocalSources, AnUnreadableSourceThrowsFromItsDigestOnly) {
    testing::ScriptSandbox box("local-sources");
    const auto good = box.dir() / "good.bin";
    box.write(good, "ok\n");
    const std::string gone = (box.dir() / "gone.bin").string();
    const LocalSources sources({{gone, 10}, {good.string(), 3}});
    EXPECT_THAT([&] { (void)sources.files().at(gone).sha256.get(); },
                ::testing::ThrowsMessage<std::runtime_error>(
                    ::testing::HasSubstr("cannot read " + gone + ": No such file or directory")));
    EXPECT_EQ(sources.files().at(good.string()).sha256.get(), util::sha256_hex("ok\n"));
}

}  // namespace
}  // namespace pdctl::push
