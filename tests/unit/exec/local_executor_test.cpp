// exec/local_executor: the parts of running a local command that the scripts' own tests do not reach.
#include "pdctl/exec/local_executor.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <string>

namespace pdctl::exec {
namespace {

// Restores the SIGPIPE disposition the test binary had, whatever the test set.
class SigpipeDisposition {
  public:
    explicit SigpipeDisposition(void (*handler)(int)) { saved_ = std::signal(SIGPIPE, handler); }
    ~SigpipeDisposition() { std::signal(SIGPIPE, saved_); }
    SigpipeDisposition(const SigpipeDisposition&) = delete;
    SigpipeDisposition& operator=(const SigpipeDisposition&) = delete;

  private:
    void (*saved_)(int) = SIG_DFL;
};

// Found under ThreadSanitizer, whose slower parent lost the race: a lock script that exits without
// reading its stdin killed the whole test binary with SIGPIPE. With SIGPIPE at its default action
// (deadly), a command that closes its stdin at once while the executor still has 1 MiB to write
// must simply finish. The child writes 8 MiB afterwards, so the executor keeps polling (and tries
// the closed stdin) long after the close, whatever the scheduling.
TEST(LocalExecutor, ACommandThatClosesItsStdinEarlyDoesNotKillTheCallerWithSigpipe) {
    const SigpipeDisposition deadly(SIG_DFL);
    LocalExecutor executor;
    Command command;
    command.argv = {"sh", "-c", "exec 0<&-; head -c 8388608 /dev/zero"};
    command.stdin_data = std::string(1 << 20, 'x');
    const auto result = executor.run(config::Node{"local", "127.0.0.1", {}, {}, {}}, command);
    EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
    EXPECT_EQ(result.out.size(), 8388608U);
    sigset_t pending;
    ::sigpending(&pending);
    EXPECT_EQ(::sigismember(&pending, SIGPIPE), 0) << "the SIGPIPE the write raised must not stay pending";
}

// A node's shell parses sshd's command line back into this argv; here the argv is spawned as it is, so the
// program is the executor's own child (one process per command, not two) and its words arrive untouched.
TEST(LocalExecutor, RunsTheArgvAsItsOwnChildWithTheWordsUntouched) {
    LocalExecutor executor;
    Command command;
    command.argv = {"sh", "-c", "echo $PPID; printf '%s|' \"$@\"", "pdctl-test", "a b", "$(false)", "'", ""};
    const auto result = executor.run(config::Node{"local", "127.0.0.1", {}, {}, {}}, command);
    ASSERT_TRUE(result.ok()) << exec::failure_reason(result);
    EXPECT_EQ(result.out, std::to_string(::getpid()) + "\na b|$(false)|'||");
}

// A first word that names no program goes to the shell, which fails it as a node's would.
TEST(LocalExecutor, AFirstWordThatIsNoProgramFailsAsOnANode) {
    LocalExecutor executor;
    Command command;
    command.argv = {"pdctl-no-such-program", "x"};
    const auto result = executor.run(config::Node{"local", "127.0.0.1", {}, {}, {}}, command);
    EXPECT_TRUE(result.transport_error.empty()) << result.transport_error;
    EXPECT_EQ(result.exit_code, 127);
    EXPECT_NE(result.err.find("pdctl-no-such-program"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace pdctl::exec
