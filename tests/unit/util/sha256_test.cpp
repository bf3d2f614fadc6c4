#include "pdctl/util/sha256.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace pdctl::util {
namespace {

TEST(Sha256, MatchesKnownDigests) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, AFileHashesLikeItsContentAcrossChunkBoundaries) {
    const auto path = std::filesystem::temp_directory_path() / ("pdctl-sha256-" + std::to_string(::getpid()));
    std::string content(3 * (1 << 20) + 5, 'x');  // more than one read chunk
    for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 31);
    std::ofstream(path, std::ios::binary) << content;
    EXPECT_EQ(sha256_file_hex(path.string()), sha256_hex(content));
    std::filesystem::remove(path);
}

TEST(Sha256, UnreadablePathsSayWhy) {
    std::string why;
    EXPECT_FALSE(sha256_file_hex("/nonexistent/pdctl", &why));
    EXPECT_EQ(why, "No such file or directory");
    EXPECT_FALSE(sha256_file_hex("/", &why));
    EXPECT_EQ(why, "is a directory");
}

TEST(Sha256, AStopAlreadySetReadsNothing) {
    const std::atomic<bool> stop{true};
    std::string why;
    EXPECT_FALSE(sha256_file_hex("/proc/self/status", &why, &stop));
    EXPECT_EQ(why, "stopped");
}

}  // namespace
}  // namespace pdctl::util
