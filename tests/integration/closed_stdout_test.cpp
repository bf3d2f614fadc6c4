// A reader that closes pdctl's standard output (`pdctl plan --json | head -c 1`) ends pdctl quietly with
// exit 141, as it ends `git log` or `cat`: no "internal error" on stderr. The pipe's reader is closed
// before pdctl writes (deterministic), and once more through a real `head -c 1`, where pdctl may have
// written everything before head left (then exit 0).
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

// `argv` followed by pdctl's `args`, run here: its exit code, stdout and stderr.
PdctlRun run_here(std::vector<std::string> argv, const std::vector<std::string>& args) {
    exec::LocalExecutor executor;
    exec::Command command;
    command.argv = std::move(argv);
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.timeout = std::chrono::seconds(60);
    const auto result = executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
    return {result.exit_code, result.out, result.err};
}

// pdctl with `args`, its stdout a pipe whose reader is already gone; stderr captured.
PdctlRun with_closed_stdout(const SimCluster& cluster, const std::vector<std::string>& args) {
    return run_here({"python3", "-c",
                     "import os, subprocess, sys\n"
                     "r, w = os.pipe()\n"
                     "os.close(r)\n"
                     "done = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)\n"
                     "sys.stderr.buffer.write(done.stderr)\n"
                     "sys.exit(done.returncode)\n",
                     pdctl::testing::pdctl_binary(), "-c", cluster.config().string()},
                    args);
}

// The same through `| head -c 1`: pdctl's exit code (bash's PIPESTATUS) and its stderr.
PdctlRun through_head(const SimCluster& cluster, const std::vector<std::string>& args) {
    const auto err_file = cluster.config().parent_path() / "head.err";
    auto head = run_here(
        {"bash", "-c", "err=$1; shift; \"$@\" 2>\"$err\" | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}",
         "closed-stdout", err_file.string(), pdctl::testing::pdctl_binary(), "-c", cluster.config().string()},
        args);
    head.err = read_text(err_file);
    return head;
}

TEST(ClosedStdout, AReaderThatLeftEndsPdctlQuietlyWithExit141) {
    SimCluster cluster("closedout", 193);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const std::vector<std::vector<std::string>> verbs = {
        {"plan", "--json"}, {"status"}, {"history"}, {"logs", "prefill", "--tail", "50"}};
    for (const auto& args : verbs) {
        const auto closed = with_closed_stdout(cluster, args);
        EXPECT_EQ(closed.exit_code, 141) << args[0] << ": " << closed.err;
        EXPECT_EQ(closed.err, "") << args[0];
        const auto head = through_head(cluster, args);
        EXPECT_TRUE(head.exit_code == 0 || head.exit_code == 141) << args[0] << " exited " << head.exit_code;
        EXPECT_EQ(head.err, "") << args[0];
    }
}

}  // namespace
}  // namespace pdctl::testing
