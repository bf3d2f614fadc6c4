// --log-file: the record a run appends, whatever the screen showed (here --json), through a good start,
// a failing one and a usage error. Simulated cluster on 127.0.77.x.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t found = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++found;
    return found;
}

TEST(LogFile, AppendsEachRunsProgressErrorAndExitCodeWhateverTheScreenShows) {
    SimCluster cluster("logfile", 77);
    const auto log = cluster.config().parent_path() / "records" / "pdctl.log";
    std::filesystem::create_directories(log.parent_path());
    const std::string path = log.string();

    const auto start = cluster.run({"--json", "--log-file", path, "start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    EXPECT_EQ(start.out.find("✓ router ready"), std::string::npos) << "the screen keeps its JSON Lines";
    std::string text = read_text(log);
    EXPECT_NE(text.find(" --json --log-file " + path + " start\n"), std::string::npos) << text;
    EXPECT_NE(text.find("✓ mooncake-master ready"), std::string::npos) << text;
    EXPECT_NE(text.find("✓ router ready"), std::string::npos) << text;
    EXPECT_NE(text.find("exit 0 (success)"), std::string::npos) << text;
    struct stat info {};
    ASSERT_EQ(::stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600U) << "node log lines are for the operator only";

    // A failing start: the failure, the unit's last log lines and the exit code land in the file too.
    cluster.run({"stop"});
    cluster.append("decode.env", "BOOTSTRAP='echo \"decode cannot reach the KV store\"; exit 3'\n");
    const auto failed = cluster.run({"--log-file", path, "start"});
    EXPECT_EQ(failed.exit_code, 4) << failed.out << failed.err;
    text = read_text(log);
    EXPECT_NE(text.find("✗ decode failed"), std::string::npos) << text;
    EXPECT_NE(text.find("decode cannot reach the KV store"), std::string::npos) << text;
    EXPECT_NE(text.find("exit 4 (stage failed)"), std::string::npos) << text;

    // Appended, never truncated: one header and one exit line per run, a usage error included.
    const auto bad = cluster.run({"--log-file", path, "logs", "no-such-role"});
    EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
    text = read_text(log);
    EXPECT_EQ(count(text, "): pdctl -c "), 3U) << "one header per run: " << text;
    EXPECT_EQ(count(text, "Z exit "), 3U) << "one exit line per run: " << text;
    EXPECT_NE(text.find("no-such-role"), std::string::npos) << "the error is recorded: " << text;

    // A log file that cannot be opened is a usage error before anything runs.
    const auto unwritable =
        cluster.run({"--log-file", (log.parent_path() / "missing" / "x.log").string(), "start"});
    EXPECT_EQ(unwritable.exit_code, 2);
    EXPECT_NE(unwritable.err.find("cannot open the log file"), std::string::npos) << unwritable.err;
    EXPECT_EQ(cluster.run({"status"}).exit_code, 8) << "nothing was started";
}

}  // namespace
}  // namespace pdctl::testing
