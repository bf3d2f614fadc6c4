// The relay's node script, run for real over loopback: a follower and two listeners hand a file along
// and leave no record behind, including a file so small that the follower has sent it all before its
// own start is looked at.
#include "pdctl/push/relay.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pdctl/exec/local_executor.hpp"

namespace pdctl::push {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class RelayScript : public ::testing::TestWithParam<std::size_t> {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("pdctl-relay-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    // An address of this process's own (127.64.0.0/10, from its pid): the gcc, ASan and TSan passes run
    // these tests at the same time, and on one shared address their listeners took each other's ports.
    static std::string own_loopback_address() {
        const auto pid = static_cast<unsigned>(::getpid());
        return "127." + std::to_string(64 + ((pid >> 16) & 63)) + "." + std::to_string((pid >> 8) & 255) +
               "." + std::to_string(pid & 255);
    }

    fs::path dir_;
    exec::LocalExecutor executor_;
    std::string address_ = own_loopback_address();
    config::Node node_{"n1", address_, {}, {}, {}};
};

// The follower sends to the first listener, which writes its copy and forwards every chunk to the
// second: both copies whole, no record left.
TEST_P(RelayScript, AFileHandedAlongAChainArrivesWholeAtEveryListenerAndLeavesNoRecord) {
    const std::size_t size = GetParam();
    std::string content(size, '\0');
    for (std::size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i % 26);
    const auto source = dir_ / "source";
    std::ofstream(source, std::ios::binary) << content;
    const auto first = dir_ / "first";
    const auto second = dir_ / "second";
    // Ports of their own per size: the gcc pass runs the two at once, in two processes.
    const int first_port = size < 1024 ? 29690 : 29691;
    const int second_port = first_port + 2;
    const auto last =
        executor_.run(node_, relay_listen_command(address_, second_port, second.string(), size, nullptr, 0));
    ASSERT_TRUE(last.ok()) << last.err;
    const auto middle = executor_.run(
        node_, relay_listen_command(address_, first_port, first.string(), size, &node_, second_port));
    ASSERT_TRUE(middle.ok()) << middle.err;
    const auto followed =
        executor_.run(node_, relay_follow_command(source.string(), size, node_, first_port));
    ASSERT_TRUE(followed.ok()) << followed.err;
    for (const auto& target : {first, second}) {
        const auto waited =
            executor_.run(node_, relay_wait_command(target.string(), std::chrono::seconds(30)));
        ASSERT_TRUE(waited.ok()) << target << ": " << waited.err;
        EXPECT_EQ(waited.out, "ok " + std::to_string(size) + "\n");
        EXPECT_EQ(slurp(target), content) << target;
        EXPECT_FALSE(fs::exists(target.string() + ".relay"));
    }
    EXPECT_FALSE(fs::exists(source.string() + ".relay"));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RelayScript, ::testing::Values(std::size_t{10}, std::size_t{5} << 20));

}  // namespace
}  // namespace pdctl::push
