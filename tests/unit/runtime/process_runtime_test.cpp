// The process runtime's scripts, run for real (sh, LocalExecutor) in a temporary state directory: the
// unit records itself before its program runs, a truncated environment starts nothing, status sees a
// group whose leader died, and stop escalates to SIGKILL and then reports success.
#include "pdctl/runtime/process_runtime.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "pdctl/exec/local_executor.hpp"
#include "unit/support/process_unit_ended.hpp"

namespace pdctl::runtime {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Polls every 20 ms until `condition` holds or 10 s pass.
template <typename Condition>
bool eventually(Condition condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return condition();
}

// How long process `pid` has run by the boot clock, computed here the way the kernel documents it
// (proc(5): starttime, field 22, in sysconf(_SC_CLK_TCK) ticks since boot), to check the script's.
double seconds_since_start(int pid) {
    const auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int number = 3; number <= 22 && fields >> field; ++number) {
    }
    double uptime = 0;
    std::ifstream("/proc/uptime") >> uptime;
    return uptime - std::stod(field) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

class ProcessRuntimeScripts : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("pdctl-process-runtime-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
    }
    void TearDown() override {
        // Never leave a unit behind, whatever the test did.
        for (const auto* name : {"u"}) executor_.run(node_, runtime(0).stop(name));
        fs::remove_all(dir_);
    }

    ProcessRuntime runtime(int grace_seconds) const {
        RuntimeSpec spec;
        spec.stop_grace_seconds = grace_seconds;
        return ProcessRuntime(spec, dir_.string());
    }
    UnitSpec unit(std::vector<std::string> argv) const {
        UnitSpec u;
        u.name = "u";
        u.cluster = "c";
        u.role = "prefill";
        u.node = "n1";
        u.fingerprint = "0123456789ab";
        u.program.argv = std::move(argv);
        u.program.env = {{"PDCTL_TEST_VALUE", "forty two", false}};
        return u;
    }
    std::vector<UnitState> inspect() {
        const auto rt = runtime(0);
        return rt.parse_inspect(executor_.run(node_, rt.inspect("c")).out);
    }

    fs::path dir_;
    exec::LocalExecutor executor_;
    config::Node node_{"n1", "127.0.0.1", {}, {}, {}};
};

TEST_F(ProcessRuntimeScripts, LogActivityIsTheTailAndTheLogFilesLastWriteByTheNodesClock) {
    const auto rt = runtime(0);
    const auto missing = rt.parse_log_activity(executor_.run(node_, rt.log_activity("u", 2)).out);
    EXPECT_GT(missing.node_now_epoch, 0);
    EXPECT_EQ(missing.last_write_epoch, 0);  // no log yet: unknown, not "quiet since 1970"
    EXPECT_EQ(missing.quiet_seconds(), -1);
    EXPECT_TRUE(missing.lines.empty());

    fs::create_directories(dir_);
    std::ofstream(dir_ / "u.log") << "one\ntwo\nLoading shards: 10%\rLoading shards: 20%\n";
    ASSERT_EQ(std::system(("touch -d @1795939923 " + (dir_ / "u.log").string()).c_str()), 0);
    const auto activity = rt.parse_log_activity(executor_.run(node_, rt.log_activity("u", 2)).out);
    EXPECT_EQ(activity.last_write_epoch, 1795939923);
    EXPECT_GT(activity.quiet_seconds(), 0);
    EXPECT_EQ(activity.lines,
              (std::vector<std::string>{"two", "Loading shards: 10%", "Loading shards: 20%"}));
}

TEST_F(ProcessRuntimeScripts, TheUnitIsRecordedBeforeItsProgramRuns) {
    // The program reads its own record first thing: the pid file must exist and name its process
    // group, and the state file must be in place, before any of the program's code runs.
    const auto command = runtime(0).start(
        unit({"sh", "-c",
              "echo \"record=$(cat \"$1.pid\") pgid=$(cut -d' ' -f5 /proc/$$/stat) env=$PDCTL_TEST_VALUE\"; "
              "test -e /proc/$$/fd/3 && echo fd3-leaked; test -f \"$1.state\" && echo state-present; "
              "exec sleep 60",
              "program", (dir_ / "u").string()}));
    const auto started = executor_.run(node_, command);
    ASSERT_TRUE(started.ok()) << started.err;
    ASSERT_TRUE(eventually([&] {
        return read_file(dir_ / "u.log").find("state-present") != std::string::npos;
    })) << read_file(dir_ / "u.log");
    const auto pid = read_file(dir_ / "u.pid");
    EXPECT_NE(read_file(dir_ / "u.log")
                  .find("record=" + pid.substr(0, pid.find('\n')) + " pgid=" + pid.substr(0, pid.find('\n')) +
                        " env=forty two"),
              std::string::npos)
        << read_file(dir_ / "u.log");
    EXPECT_EQ(started.out, "started u pid " + pid);
    // The start script's pipe (how it learns the record is in place) never reaches the program.
    EXPECT_EQ(read_file(dir_ / "u.log").find("fd3-leaked"), std::string::npos) << read_file(dir_ / "u.log");
    const auto units = inspect();
    ASSERT_EQ(units.size(), 1u);
    EXPECT_TRUE(units[0].running);
}

TEST_F(ProcessRuntimeScripts, TheStackDumpTargetsTheProgramNotItsSupervisingShell) {
    const auto rt = runtime(0);
    EXPECT_EQ(executor_.run(node_, rt.python_stack("u", {"echo"})).exit_code, 3)
        << "not running: nothing to dump";
    // A program whose name holds a blank and a parenthesis, as /proc shows comm "(a b) x".
    fs::create_directories(dir_);
    fs::copy_file("/bin/sleep", dir_ / "a b) x");
    ASSERT_TRUE(executor_.run(node_, rt.start(unit({(dir_ / "a b) x").string(), "60"}))).ok());
    const int leader = std::stoi(read_file(dir_ / "u.pid"));
    int program = 0;
    ASSERT_TRUE(eventually([&] {
        for (const auto& entry : fs::directory_iterator("/proc")) {
            const auto name = entry.path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            if (read_file(entry.path() / "comm") == "a b) x\n") program = std::stoi(name);
        }
        return program != 0;
    }));
    ASSERT_NE(program, leader);
    const auto dumped = executor_.run(node_, rt.python_stack("u", {"echo"}));
    ASSERT_TRUE(dumped.ok()) << dumped.err;
    EXPECT_EQ(dumped.out, "dump --pid " + std::to_string(program) + " --subprocesses\n");
    const auto missing = executor_.run(node_, rt.python_stack("u", {"no-such-py-spy"}));
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_NE(missing.err.find("no-such-py-spy is not installed on this node"), std::string::npos)
        << missing.err;
}

// A process that exits between the listing of /proc and the read of its stat file (here a dangling
// stat link in a stand-in /proc) is skipped without a word: it was a dozen "cannot open" lines per
// rank on an idle node, above the dump.
TEST_F(ProcessRuntimeScripts, TheStackDumpSkipsAProcessThatExitsWhileBeingRead) {
    const auto rt = runtime(0);
    const fs::path proc = dir_ / "proc";
    fs::create_directories(proc / "41");
    fs::create_directories(proc / "42");
    fs::create_directories(proc / "43");
    std::ofstream(dir_ / "u.pid") << "40\n";
    std::ofstream(proc / "41" / "stat") << "41 (sh) S 1 40 40 0\n";
    fs::create_symlink(proc / "gone" / "stat", proc / "42" / "stat");
    std::ofstream(proc / "43" / "stat") << "43 (python3) S 41 40 40 0\n";
    ::setenv("PDCTL_PROC_ROOT", proc.c_str(), 1);
    exec::LocalExecutor with_stand_in_proc;  // it copies the environment when it is made
    ::unsetenv("PDCTL_PROC_ROOT");
    const auto dumped = with_stand_in_proc.run(node_, rt.python_stack("u", {"echo"}));
    EXPECT_TRUE(dumped.ok()) << dumped.err;
    EXPECT_EQ(dumped.out, "dump --pid 43 --subprocesses\n");
    EXPECT_EQ(dumped.err, "");
}

TEST_F(ProcessRuntimeScripts, AnEnvironmentCutShortStartsNothing) {
    auto command = runtime(0).start(unit({"sleep", "60"}));
    // What a pdctl killed while sending stdin leaves: the env without its last line.
    command.stdin_data = "PDCTL_TEST_VALUE=forty two\n";
    const auto started = executor_.run(node_, command);
    EXPECT_EQ(started.exit_code, 1);
    EXPECT_NE(started.err.find("arrived incomplete"), std::string::npos) << started.err;
    EXPECT_FALSE(fs::exists(dir_ / "u.env"));
    EXPECT_FALSE(fs::exists(dir_ / "u.pid"));
    EXPECT_TRUE(inspect().empty());
}

TEST_F(ProcessRuntimeScripts, StatusSeesTheGroupAfterItsLeaderDied) {
    // The supervising sh is killed alone; the program it started lives on in the unit's group, so the
    // unit is still running (its GPUs are still held), and stop must still remove it.
    ASSERT_TRUE(
        executor_.run(node_, runtime(0).start(unit({"sh", "-c", "echo program-started; exec sleep 60"})))
            .ok());
    // The start returns once the unit is recorded, which is before its program runs: the leader is
    // killed only once the program is there to outlive it.
    ASSERT_TRUE(eventually([&] {
        return read_file(dir_ / "u.log").find("program-started") != std::string::npos;
    })) << read_file(dir_ / "u.log");
    const int leader = std::stoi(read_file(dir_ / "u.pid"));
    ::kill(leader, SIGKILL);
    ASSERT_TRUE(eventually([&] {
        return ::kill(leader, 0) != 0 ||
               read_file("/proc/" + std::to_string(leader) + "/stat").find(") Z ") != std::string::npos;
    }));
    const auto units = inspect();
    ASSERT_EQ(units.size(), 1u);
    EXPECT_TRUE(units[0].running) << "the program still runs in the unit's process group";
    // Its uptime is still known: from the leader's start while its pid is a zombie (PID 1 here does not
    // reap), else from the node's wall clock.
    EXPECT_TRUE(units[0].age_seconds >= 0 || units[0].node_now_epoch > 0)
        << units[0].age_seconds << " " << units[0].node_now_epoch;
    const auto stopped = executor_.run(node_, runtime(0).stop("u"));
    EXPECT_TRUE(stopped.ok()) << stopped.err;
    EXPECT_TRUE(inspect().empty());
}

TEST_F(ProcessRuntimeScripts, InspectReportsARunningAndAnExitedUnitWithTheirRecords) {
    ASSERT_TRUE(executor_.run(node_, runtime(0).start(unit({"sh", "-c", "exec sleep 60"}))).ok());
    ASSERT_TRUE(eventually([&] { return fs::exists(dir_ / "u.pid"); }));
    auto units = inspect();
    ASSERT_EQ(units.size(), 1u);
    EXPECT_TRUE(units[0].running);
    EXPECT_EQ(units[0].pid, std::stoi(read_file(dir_ / "u.pid")));
    EXPECT_EQ(units[0].exit_code, "");
    EXPECT_EQ(units[0].finished_epoch, 0);
    // Its age is its leader's, by the boot clock, with no process to read the wall clock.
    EXPECT_NEAR(static_cast<double>(units[0].age_seconds), seconds_since_start(units[0].pid), 1.0);
    EXPECT_EQ(units[0].node_now_epoch, 0);
    EXPECT_EQ(units[0].labels["pdctl.role"], "prefill");

    ASSERT_TRUE(executor_.run(node_, runtime(0).stop("u")).ok());
    ASSERT_TRUE(executor_.run(node_, runtime(0).start(unit({"sh", "-c", "exit 3"}))).ok());
    ASSERT_TRUE(pdctl::testing::process_unit_ends_within(dir_, "u", std::chrono::seconds(10)));
    // A record written by hand without its last newline still ends where it should.
    std::ofstream(dir_ / "u.state", std::ios::app) << "hand_written=yes";
    units = inspect();
    ASSERT_EQ(units.size(), 1u);
    EXPECT_FALSE(units[0].running);
    EXPECT_EQ(units[0].exit_code, "3");
    EXPECT_NEAR(static_cast<double>(units[0].finished_epoch), static_cast<double>(::time(nullptr)), 60.0);
    EXPECT_EQ(units[0].age_seconds, -1) << "an exited unit has no age";
    EXPECT_EQ(units[0].labels["pdctl.role"], "prefill");
    EXPECT_EQ(units[0].labels["hand_written"], "yes");
}

TEST_F(ProcessRuntimeScripts, AKeptLogKeepsTheTimeItsUnitLastWroteIt) {
    ASSERT_TRUE(executor_.run(node_, runtime(0).start(unit({"sh", "-c", "echo last words; exit 1"}))).ok());
    ASSERT_TRUE(pdctl::testing::process_unit_ends_within(dir_, "u", std::chrono::seconds(10)));
    // An hour back: a stop that copied the log without its time would show now instead.
    const auto written = fs::last_write_time(dir_ / "u.log") - std::chrono::hours(1);
    fs::last_write_time(dir_ / "u.log", written);
    ASSERT_TRUE(executor_.run(node_, runtime(0).stop("u")).ok());
    const auto kept = dir_ / "previous" / "u.log";
    ASSERT_TRUE(fs::exists(kept));
    EXPECT_EQ(read_file(kept), "last words\n");
    EXPECT_EQ(fs::last_write_time(kept), written);
}

TEST_F(ProcessRuntimeScripts, StopEscalatesToSigkillForAProgramThatIgnoresSigterm) {
    ASSERT_TRUE(
        executor_
            .run(node_, runtime(1).start(unit({"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"})))
            .ok());
    const auto stopped = executor_.run(node_, runtime(1).stop("u"));
    EXPECT_TRUE(stopped.ok()) << stopped.err;
    EXPECT_EQ(stopped.out.rfind("stopped u (pid ", 0), 0u) << stopped.out;
    EXPECT_TRUE(inspect().empty());
    const auto again = executor_.run(node_, runtime(1).stop("u"));
    EXPECT_EQ(again.out, "u was not running\n");
}

// BOOTSTRAP (src/runtime/scripts/bootstrap.sh) runs before the program, in the same shell.
class Bootstrap : public ::testing::Test {
  protected:
    exec::CommandResult run(const std::string& bootstrap, std::vector<std::string> program) {
        ProgramSpec spec;
        spec.bootstrap = bootstrap;
        spec.argv = std::move(program);
        exec::Command command;
        command.argv = launch_argv(spec);
        return executor_.run(node_, command);
    }
    exec::LocalExecutor executor_;
    config::Node node_{"n1", "127.0.0.1", {}, {}, {}};
};

TEST_F(Bootstrap, WhatItExportsReachesTheProgram) {
    const auto done = run("export PDCTL_PATCHED='yes it is'", {"sh", "-c", "printf '%s' \"$PDCTL_PATCHED\""});
    EXPECT_EQ(done.exit_code, 0) << done.err;
    EXPECT_EQ(done.out, "yes it is");
}

TEST_F(Bootstrap, AFailureStopsTheUnitBeforeTheProgram) {
    const auto done = run("echo patching; exit_code=3; (exit $exit_code)", {"echo", "server started"});
    EXPECT_EQ(done.exit_code, 97);
    EXPECT_EQ(done.out, "patching\n");
    EXPECT_NE(done.err.find("pdctl: BOOTSTRAP failed (exit 3)"), std::string::npos) << done.err;
}

// A BOOTSTRAP that does not parse is a failed BOOTSTRAP too, not a shell that quits before saying why.
TEST_F(Bootstrap, TextThatDoesNotParseStopsTheUnitAndSaysWhy) {
    const auto done = run("if then fi (", {"echo", "server started"});
    EXPECT_EQ(done.exit_code, 97);
    EXPECT_EQ(done.out, "");
    EXPECT_NE(done.err.find("pdctl: BOOTSTRAP failed"), std::string::npos) << done.err;
}

// Without a BOOTSTRAP the program runs as it is, with no shell around it.
TEST_F(Bootstrap, NoneLeavesTheProgramAlone) {
    ProgramSpec spec;
    spec.argv = {"python3", "-m", "sglang.launch_server"};
    EXPECT_EQ(launch_argv(spec), spec.argv);
}

}  // namespace
}  // namespace pdctl::runtime
