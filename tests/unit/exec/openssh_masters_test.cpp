// The per-user directory of the OpenSSH masters that stay between runs: refused wherever another
// user could reach the sockets, the masters' stable names, and PDCTL_SSH_PERSIST's values.
#include "pdctl/exec/openssh_masters.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace pdctl::exec {
namespace {

using namespace std::chrono_literals;

// The message prepare_control_dir throws for `dir`; empty when it accepts it.
std::string refusal(const std::string& dir) {
    try {
        prepare_control_dir(dir);
    } catch (const std::runtime_error& error) {
        return error.what();
    }
    return "";
}

class ControlDir : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string pattern = "/tmp/pdcu-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        base = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(base); }
    std::string base;
};

TEST_F(ControlDir, IsCreatedPrivateAndAcceptedAgain) {
    const std::string dir = base + "/ssh";
    EXPECT_EQ(refusal(dir), "");
    struct stat info {};
    ASSERT_EQ(::stat(dir.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    EXPECT_EQ(refusal(dir), "") << "an existing private directory is this user's own";
}

TEST_F(ControlDir, IsRefusedWhereAnotherUserCouldReachTheSockets) {
    const std::string open_dir = base + "/open";
    std::filesystem::create_directory(open_dir);
    ::chmod(open_dir.c_str(), 0755);
    EXPECT_EQ(refusal(open_dir), "SSH control directory " + open_dir +
                                     ": has mode 0755; other users could reach your SSH connections "
                                     "through it (chmod 700 " +
                                     open_dir + ")");

    const std::string shared = base + "/shared";
    std::filesystem::create_directory(shared);
    ::chmod(shared.c_str(), 01777);
    EXPECT_EQ(refusal(shared), "SSH control directory " + shared +
                                   ": is a shared directory (mode 1777); set PDCTL_SSH_CONTROL_DIR to a "
                                   "directory of your own")
        << "never a hint to chmod a shared directory like /tmp";

    const std::string target = base + "/target";
    std::filesystem::create_directory(target);
    ::chmod(target.c_str(), 0700);
    const std::string link = base + "/link";
    std::filesystem::create_directory_symlink(target, link);
    EXPECT_NE(refusal(link).find("is a symbolic link"), std::string::npos) << refusal(link);

    const std::string file = base + "/file";
    std::ofstream(file) << "x";
    EXPECT_NE(refusal(file).find("is not a directory"), std::string::npos) << refusal(file);

    EXPECT_NE(refusal("relative/dir").find("must be an absolute path"), std::string::npos);
    const std::string deep = base + "/" + std::string(80, 'd');
    EXPECT_NE(refusal(deep).find("too long for a socket path"), std::string::npos) << refusal(deep);
    EXPECT_FALSE(std::filesystem::exists(deep)) << "refused before it is created";

    if (::geteuid() == 0) {
        const std::string theirs = base + "/theirs";
        std::filesystem::create_directory(theirs);
        ::chmod(theirs.c_str(), 0700);
        ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
        EXPECT_NE(refusal(theirs).find("belongs to uid 65534, not to you (uid 0)"), std::string::npos)
            << refusal(theirs);
    }
}

TEST(MasterName, IsStableForOneConnectionAndDiffersForAnother) {
    const std::string connection = std::string("policy text") + '\0' + "-l root -- 10.0.0.1";
    EXPECT_EQ(master_name(connection), master_name(connection));
    EXPECT_EQ(master_name(connection).size(), 16u);
    EXPECT_EQ(master_name(connection).find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(master_name(connection),
              master_name(std::string("policy text") + '\0' + "-l root -- 10.0.0.2"));
}

TEST(SshPersist, TakesSecondsOrAUnitAndRefusesTheRest) {
    EXPECT_EQ(parse_ssh_persist("60"), 60s);
    EXPECT_EQ(parse_ssh_persist("90s"), 90s);
    EXPECT_EQ(parse_ssh_persist("5m"), 300s);
    EXPECT_EQ(parse_ssh_persist("1h"), 3600s);
    EXPECT_EQ(parse_ssh_persist("0"), 0s);
    for (const std::string bad : {"", "m", "-1", "1.5", "10ms", "1d", "abc", "99999999"}) {
        try {
            parse_ssh_persist(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const std::invalid_argument& error) {
            EXPECT_EQ(std::string(error.what()),
                      "PDCTL_SSH_PERSIST=" + bad +
                          ": not a duration (seconds, or with a unit: 90s, 5m, 1h; 0 ends the SSH masters "
                          "with each run)");
        }
    }
}

TEST_F(ControlDir, ClosingADirectoryWithoutMastersRemovesTheSocketsOfDeadOnes) {
    EXPECT_TRUE(close_masters_in(base + "/missing").empty());
    const std::string dir = base + "/ssh";
    prepare_control_dir(dir);
    // A socket file no master listens on any more: what a SIGKILLed master leaves.
    {
        std::ofstream(dir + "/0123456789abcdef.dest") << "n5 (10.77.0.5:22)\n";
        std::ofstream(dir + "/0123456789abcdef.sock");
    }
    const auto closed = close_masters_in(dir);
    ASSERT_EQ(closed.size(), 1u);
    EXPECT_EQ(closed[0].destination, "n5 (10.77.0.5:22)");
    EXPECT_FALSE(closed[0].was_running);
    EXPECT_FALSE(std::filesystem::exists(dir + "/0123456789abcdef.sock"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/0123456789abcdef.dest"));

    // A master that ended by itself (its idle time) left its log and destination, no socket.
    std::ofstream(dir + "/fedcba9876543210.log") << "";
    std::ofstream(dir + "/fedcba9876543210.dest") << "n6 (10.77.0.6:22)\n";
    std::ofstream(dir + "/fedcba9876543210.lock") << "";
    EXPECT_TRUE(close_masters_in(dir).empty());
    EXPECT_FALSE(std::filesystem::exists(dir + "/fedcba9876543210.log"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/fedcba9876543210.dest"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/fedcba9876543210.lock")) << "another run may hold it";
}

}  // namespace
}  // namespace pdctl::exec
