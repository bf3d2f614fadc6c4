// The live view in a real terminal: the real pdctl starts a simulated cluster inside tmux, and the
// test reads the screen with `tmux capture-pane` while prefill loads its weights and after the run.
// Set PDCTL_SAVE_LIVE_VIEW=<file> to keep both screens (docs/live-view.txt is made this way).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "pdctl/util/shell_quote.hpp"
#include "pdctl_harness.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using namespace std::chrono_literals;

exec::CommandResult shell(const std::string& script) {
    exec::LocalExecutor executor;
    exec::Command command;
    command.argv = {"sh", "-c", script};
    command.timeout = 30s;
    return executor.run({"local", "127.0.0.1", {}, {}, {}}, command);
}

// A private tmux server (its own socket) holding one detached session; killed with the test.
class TmuxSession {
  public:
    TmuxSession(const std::string& command, int width, int height) : socket_(next_socket()) {
        // -u: the pane is UTF-8 whatever the locale; -f /dev/null: no user config; TMUX unset so
        // the test also works from inside a tmux session.
        started_ = shell("env -u TMUX " + tmux() + " -f /dev/null new-session -d -s live -x " +
                         std::to_string(width) + " -y " + std::to_string(height) + " " +
                         util::shell_quote(command) + " >/dev/null 2>&1")
                       .ok();
    }
    ~TmuxSession() {
        shell(tmux() + " kill-server >/dev/null 2>&1");
        std::filesystem::remove(socket_);  // tmux leaves it behind when killed
    }
    bool started() const { return started_; }

    std::string screen() const { return shell(tmux() + " capture-pane -p -t live").out; }

    // Polls the screen until `done` holds or `timeout` passes; returns the last screen.
    template <typename Predicate>
    std::string wait_for(Predicate done, std::chrono::seconds timeout) const {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::string text = screen();
        while (!done(text) && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(100ms);
            text = screen();
        }
        return text;
    }

  private:
    // A server per session: a killed server may still hold its socket when the next one starts.
    static std::string next_socket() {
        static int sessions = 0;
        return (std::filesystem::temp_directory_path() /
                ("pdctl-live-" + std::to_string(::getpid()) + "-" + std::to_string(++sessions) + ".tmux"))
            .string();
    }
    std::string tmux() const { return "tmux -u -S " + util::shell_quote(socket_); }
    std::string socket_;
    bool started_ = false;
};

// The screen's lines, trailing blank lines dropped.
std::vector<std::string> lines_of(const std::string& screen) {
    std::vector<std::string> lines;
    std::istringstream in(screen);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    while (!lines.empty() && lines.back().find_first_not_of(' ') == std::string::npos) lines.pop_back();
    return lines;
}

std::string line_with(const std::string& screen, const std::string& needle) {
    for (const auto& line : lines_of(screen))
        if (line.find(needle) != std::string::npos) return line;
    return {};
}

int count_lines_with(const std::string& screen, const std::string& needle) {
    int count = 0;
    for (const auto& line : lines_of(screen)) count += line.find(needle) != std::string::npos;
    return count;
}

// `pdctl -c CONFIG start` in a fresh terminal; the pane stays open after pdctl exits.
std::string start_command(const SimCluster& cluster) {
    // CI unset: the live view is for terminals that are not CI jobs.
    return "env -u CI -u NO_COLOR " + util::shell_quote(pdctl::testing::pdctl_binary()) + " -c " +
           util::shell_quote(cluster.config().string()) + " start; echo \"pdctl exited $?\"; exec sleep 600";
}

bool exited(const std::string& screen) {
    return screen.find("pdctl exited") != std::string::npos;
}

std::string trimmed(const std::string& screen) {
    std::string text;
    for (const auto& line : lines_of(screen)) text += line + "\n";
    return text;
}

// One test, two runs on one address block (tests run in parallel; each needs its own block).
TEST(LiveView, RealTerminalShowsPhasesThenOneFinalBlockAndAFailureInFull) {
    if (!shell("command -v tmux").ok())
        GTEST_SKIP()
            << "tmux is not installed (.ci/install-deps installs it); the live view needs a terminal";

    SimCluster cluster("liveview", 71);
    // Slow weights on prefill so the screen can be read mid-phase; 0 HCAs adds a warning line.
    cluster.append("prefill.env", "PDSIM_WEIGHTS_MS=8000\nPDSIM_KV_MS=1500\nPDSIM_HCAS=0\n");
    std::string loading, final_screen;
    {
        SCOPED_TRACE("a start that succeeds");
        TmuxSession tmux(start_command(cluster), 120, 30);
        ASSERT_TRUE(tmux.started()) << "tmux new-session failed";

        // Each rank logs its own phases: under load rank 3 can still be initialising when rank 0
        // starts its weights, so wait for the screen where all of ranks 1-3 have joined. It lasts:
        // every rank loads for 8 s, and rank 0 waits at the barrier until the last one is done.
        loading = tmux.wait_for(
            [](const std::string& s) {
                return line_with(s, "◐ prefill").find("loading weights") != std::string::npos &&
                       line_with(s, "n2–n4").find("joined, loading weights") != std::string::npos;
            },
            60s);
        ASSERT_NE(line_with(loading, "◐ prefill").find("loading weights"), std::string::npos) << loading;
        EXPECT_NE(line_with(loading, "✓ mooncake-master").find("ready"), std::string::npos) << loading;
        EXPECT_NE(line_with(loading, "n2–n4").find("joined, loading weights"), std::string::npos) << loading;
        EXPECT_NE(line_with(loading, "warning:").find("0 HCAs"), std::string::npos) << loading;
        EXPECT_NE(line_with(loading, "· decode").find("waiting for prefill"), std::string::npos) << loading;
        EXPECT_NE(line_with(loading, "· router").find("waiting for prefill and decode"), std::string::npos)
            << loading;
        EXPECT_EQ(count_lines_with(loading, "◐ prefill"), 1) << "one block on screen\n" << loading;

        final_screen = tmux.wait_for(exited, 120s);
        ASSERT_NE(final_screen.find("pdctl exited 0"), std::string::npos) << final_screen;
        for (const char* role : {"✓ mooncake-master", "✓ prefill", "✓ decode", "✓ router"}) {
            EXPECT_EQ(count_lines_with(final_screen, role), 1) << role << " once: no stale copy\n"
                                                               << final_screen;
            EXPECT_NE(line_with(final_screen, role).find("ready"), std::string::npos) << final_screen;
        }
        EXPECT_NE(line_with(final_screen, "✓ prefill").find("weights 0:"), std::string::npos)
            << "phase times kept in the final block\n"
            << final_screen;
        EXPECT_EQ(final_screen.find("◐"), std::string::npos) << final_screen;
        EXPECT_NE(final_screen.find("✓ start: all stages ready"), std::string::npos) << final_screen;
    }

    // prefill rank 2 dies half-way through its weights: the changed env restarts prefill and what
    // follows; the master, unchanged, is kept.
    cluster.append("prefill.env", "PDSIM_CRASH_AT=weights\nPDSIM_CRASH_RANK=2\n");
    std::string failed_screen;
    {
        SCOPED_TRACE("a start where prefill rank 2 crashes");
        TmuxSession tmux(start_command(cluster), 120, 30);
        ASSERT_TRUE(tmux.started()) << "tmux new-session failed";
        failed_screen = tmux.wait_for(exited, 120s);
        ASSERT_NE(failed_screen.find("pdctl exited 4"), std::string::npos) << failed_screen;
        const auto failed = line_with(failed_screen, "✗ prefill");
        EXPECT_NE(failed.find("n3 rank2"), std::string::npos) << failed_screen;
        EXPECT_NE(failed.find("while loading weights"), std::string::npos) << failed_screen;
        EXPECT_NE(line_with(failed_screen, "✓ mooncake-master").find("already running"), std::string::npos)
            << failed_screen;
        EXPECT_NE(line_with(failed_screen, "· decode").find("not started"), std::string::npos)
            << failed_screen;
        // Below the final block, in full: the failure with the unit's last lines, then the summary.
        EXPECT_NE(failed_screen.find("last lines from n3:"), std::string::npos) << failed_screen;
        EXPECT_NE(failed_screen.find("Scheduler hit an exception: pdsim injected crash at weights"),
                  std::string::npos)
            << failed_screen;
        EXPECT_NE(failed_screen.find("stopped what this run started: prefill"), std::string::npos)
            << failed_screen;
        EXPECT_EQ(count_lines_with(failed_screen, "✗ prefill  "), 1) << "one final block\n" << failed_screen;
    }

    if (const char* save = std::getenv("PDCTL_SAVE_LIVE_VIEW")) {
        write_text(
            save,
            "# `tmux capture-pane -p` of a 120x30 terminal, saved by tests/integration/live_view_test.cpp\n"
            "# (PDCTL_SAVE_LIVE_VIEW=docs/live-view.txt): the simulated cluster, prefill with slow weights\n"
            "# (PDSIM_WEIGHTS_MS=8000) and no RDMA device (PDSIM_HCAS=0).\n\n"
            "$ pdctl start    # while prefill loads its weights\n" +
                trimmed(loading) + "\n$ pdctl start    # when it is done\n" + trimmed(final_screen) +
                "\n$ pdctl start    # prefill rank 2 crashes while loading weights\n" +
                trimmed(failed_screen));
    }
}

}  // namespace
}  // namespace pdctl::testing
