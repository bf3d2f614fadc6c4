// exec::failure_reason: every way a command can fail reads as a reason, never as an empty string (a
// remote check that timed out once failed a test with an empty message, issue 27).
#include <gtest/gtest.h>

#include "pdctl/exec/command.hpp"

namespace pdctl::exec {
namespace {

CommandResult exited(int code, std::string out = "", std::string err = "") {
    CommandResult result;
    result.exit_code = code;
    result.out = std::move(out);
    result.err = std::move(err);
    return result;
}

TEST(FailureReason, NamesTheExitCodeAndTheFirstLineOfStderr) {
    EXPECT_EQ(
        failure_reason(exited(1, "", "mkdir: cannot create directory '/data': Permission denied\nmore\n")),
        "exit 1: mkdir: cannot create directory '/data': Permission denied");
}

TEST(FailureReason, SkipsBlankLinesAndFallsBackToStdout) {
    EXPECT_EQ(failure_reason(exited(2, "sha256sum: x: No such file\n", "\n  \n")),
              "exit 2: sha256sum: x: No such file");
}

TEST(FailureReason, IsNeverEmpty) {
    EXPECT_EQ(failure_reason(exited(3)), "exit 3");
    CommandResult timed_out;
    timed_out.timed_out = true;
    EXPECT_EQ(failure_reason(timed_out), "timed out");
    CommandResult killed;
    killed.signal = "SIGKILL";
    EXPECT_EQ(failure_reason(killed), "killed by SIGKILL");
    CommandResult unreachable;
    unreachable.transport_error = "connect to 10.77.0.4:22: Connection refused";
    EXPECT_EQ(failure_reason(unreachable), "unreachable: connect to 10.77.0.4:22: Connection refused");
}

TEST(FailureReason, KeepsWhatATimedOutCommandHadPrintedSoFar) {
    CommandResult result;
    result.timed_out = true;
    result.err = "waiting for /health\n";
    EXPECT_EQ(failure_reason(result), "timed out: waiting for /health");
}

}  // namespace
}  // namespace pdctl::exec
