// SshExecutor against the real sshd hosts of the SSH test cluster: connection reuse, stdin, exit
// status and signals, quoting, large output on both streams, deadlines, SFTP upload.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "ssh_cluster.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::SshExecutor;

class SshExecutorTest : public SshClusterTest {};

Command sh(const std::string& script, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    return Command{{"sh", "-c", script}, {}, timeout};
}

TEST_F(SshExecutorTest, RunsOnEveryHostOverOneConnectionPerHost) {
    SshExecutor executor(cluster.options());
    constexpr int kCommandsPerHost = 5;
    struct Seen {
        std::vector<std::string> hostnames, client_ports, errors;
        long long first_ms = 0, rest_ms = 0;
    };
    std::vector<Seen> seen(cluster.hosts.size());
    std::vector<std::thread> threads;
    const auto started = Clock::now();
    for (std::size_t h = 0; h < cluster.hosts.size(); ++h) {
        threads.emplace_back([&, h] {
            for (int n = 0; n < kCommandsPerHost; ++n) {
                const auto t0 = Clock::now();
                const auto result = executor.run(cluster.node(static_cast<int>(h) + 1),
                                                 sh("hostname; echo \"$SSH_CONNECTION\""));
                (n == 0 ? seen[h].first_ms : seen[h].rest_ms) += elapsed_ms(t0);
                if (!result.ok()) {
                    seen[h].errors.push_back(result.transport_error + result.err);
                    continue;
                }
                std::istringstream lines(result.out);
                std::string hostname, client, client_port;
                lines >> hostname >> client >> client_port;
                seen[h].hostnames.push_back(hostname);
                seen[h].client_ports.push_back(client_port);
            }
        });
    }
    // Meanwhile, other threads use host 1's connection too: they are serialised on it.
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&] {
            for (int n = 0; n < 3; ++n) EXPECT_TRUE(executor.run(cluster.node(1), sh("true")).ok());
        });
    }
    for (auto& thread : threads) thread.join();
    const auto total_ms = elapsed_ms(started);

    long long first = 0, rest = 0;
    for (std::size_t h = 0; h < cluster.hosts.size(); ++h) {
        SCOPED_TRACE(cluster.hosts[h].name);
        EXPECT_TRUE(seen[h].errors.empty()) << seen[h].errors.front();
        ASSERT_EQ(seen[h].hostnames.size(), static_cast<std::size_t>(kCommandsPerHost));
        for (int n = 0; n < kCommandsPerHost; ++n) {
            EXPECT_EQ(seen[h].hostnames[n], cluster.hosts[h].name);  // each host has its own UTS namespace
            EXPECT_EQ(seen[h].client_ports[n], seen[h].client_ports[0]) << "a new TCP connection was opened";
        }
        first += seen[h].first_ms;
        rest += seen[h].rest_ms;
    }
    EXPECT_EQ(executor.connections_opened(), cluster.hosts.size());
    const auto hosts = static_cast<long long>(cluster.hosts.size());
    std::printf(
        "[ timing ] %lld hosts in parallel, %d commands each: %lld ms; first command (connect + run) "
        "avg %lld ms; later commands avg %.1f ms\n",
        hosts, kCommandsPerHost, total_ms, first / hosts,
        static_cast<double>(rest) / static_cast<double>(hosts * (kCommandsPerHost - 1)));
}

TEST_F(SshExecutorTest, SequentialCommandsOnAReusedSessionAreFast) {
    SshExecutor executor(cluster.options());
    const auto t0 = Clock::now();
    ASSERT_TRUE(executor.run(cluster.node(2), sh("true")).ok());
    const auto connect_ms = elapsed_ms(t0);
    constexpr int kCommands = 50;
    const auto t1 = Clock::now();
    for (int n = 0; n < kCommands; ++n) ASSERT_TRUE(executor.run(cluster.node(2), sh("true")).ok());
    const double per_command = static_cast<double>(elapsed_ms(t1)) / kCommands;
    std::printf("[ timing ] connect + first command: %lld ms; %d more commands: %.1f ms each\n", connect_ms,
                kCommands, per_command);
    EXPECT_EQ(executor.connections_opened(), 1u);
    EXPECT_LT(per_command, 200.0);  // ~5 ms here; generous for a loaded 2-core CI machine
}

TEST_F(SshExecutorTest, StdinRoundTripsBinaryData) {
    SshExecutor executor(cluster.options());
    std::string data(1 << 20, '\0');
    std::mt19937 random(42);
    for (auto& c : data) c = static_cast<char>(random());
    const auto result = executor.run(cluster.node(3), Command{{"cat"}, data, std::chrono::seconds(30)});
    ASSERT_TRUE(result.ok()) << result.transport_error << result.err;
    EXPECT_EQ(result.out.size(), data.size());
    EXPECT_TRUE(result.out == data);

    // A command that does not read its stdin still finishes.
    const auto ignored = executor.run(cluster.node(3), Command{{"true"}, data, std::chrono::seconds(30)});
    EXPECT_TRUE(ignored.ok()) << exec::failure_reason(ignored);
}

TEST_F(SshExecutorTest, ReportsExitCodeStderrAndSignal) {
    SshExecutor executor(cluster.options());
    const auto failed = executor.run(cluster.node(4), sh("echo out; echo oops >&2; exit 7"));
    EXPECT_TRUE(failed.transport_error.empty()) << failed.transport_error;
    EXPECT_EQ(failed.exit_code, 7);
    EXPECT_EQ(failed.out, "out\n");
    EXPECT_EQ(failed.err, "oops\n");
    EXPECT_TRUE(failed.signal.empty());

    const auto killed = executor.run(cluster.node(4), sh("kill -TERM $$"));
    EXPECT_TRUE(killed.transport_error.empty()) << killed.transport_error;
    EXPECT_EQ(killed.signal, "SIGTERM");
    EXPECT_EQ(killed.exit_code, 128 + SIGTERM);

    const auto missing =
        executor.run(cluster.node(4), Command{{"pdctl-no-such-program"}, {}, std::chrono::seconds(10)});
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_EQ(executor.connections_opened(), 1u);
}

TEST_F(SshExecutorTest, ShellMetacharactersSurviveQuoting) {
    SshExecutor executor(cluster.options());
    const std::string word =
        "a b\tc'd\"e $(touch /tmp/pdctl-pwned) `id` ${HOME} ; | & < > * ? [x] {a,b} ~ # ! \\ \n end '' \"\"";
    const auto result =
        executor.run(cluster.node(5), Command{{"printf", "%s", word}, {}, std::chrono::seconds(10)});
    ASSERT_TRUE(result.ok()) << result.transport_error << result.err;
    EXPECT_EQ(result.out, word);
    EXPECT_FALSE(std::filesystem::exists("/tmp/pdctl-pwned"));
}

TEST_F(SshExecutorTest, FiveMegabytesOnEachStreamCompleteQuicklyAndIntact) {
    // stderr is filled completely before stdout is written: a reader that drained only one stream at a
    // time would stall here until the deadline.
    const std::string script =
        "seq 1000000 1999999 | head -c 5242880 >&2; seq 1 999999 | head -c 5242880; echo done >&2";
    exec::LocalExecutor local_executor;
    const auto expected = local_executor.run(config::Node{}, sh(script));
    ASSERT_TRUE(expected.ok());
    ASSERT_EQ(expected.out.size(), 5242880u);

    SshExecutor executor(cluster.options());
    ASSERT_TRUE(executor.run(cluster.node(6), sh("true")).ok());  // connect first: time only the transfer
    const auto t0 = Clock::now();
    const auto result = executor.run(cluster.node(6), sh(script, std::chrono::seconds(60)));
    const auto ms = elapsed_ms(t0);
    ASSERT_TRUE(result.ok()) << result.transport_error << " timed out: " << result.timed_out;
    EXPECT_EQ(result.out.size(), expected.out.size());
    EXPECT_EQ(result.err.size(), expected.err.size());
    EXPECT_TRUE(result.out == expected.out) << "stdout differs";
    EXPECT_TRUE(result.err == expected.err) << "stderr differs";
    std::printf("[ timing ] 5 MB stderr + 5 MB stdout: %lld ms\n", ms);
    EXPECT_LT(ms, 10'000);
}

TEST_F(SshExecutorTest, CommandPastItsDeadlineTimesOutWithoutHanging) {
    SshExecutor executor(cluster.options());
    ASSERT_TRUE(executor.run(cluster.node(7), sh("true")).ok());
    // -vv's line for the command says where it stalled: it ran, printed, and went quiet.
    std::ostringstream debug_log;
    const auto previous_logger = spdlog::default_logger();
    auto capturing = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_st>(debug_log));
    capturing->set_level(spdlog::level::debug);
    spdlog::set_default_logger(capturing);
    Restore previous_logging([&] { spdlog::set_default_logger(previous_logger); });
    const auto t0 = Clock::now();
    // Prints its pid first, so the test can end it: libssh2 1.10 cannot signal a remote command.
    const auto result =
        executor.run(cluster.node(7), sh("echo $$; exec sleep 60", std::chrono::milliseconds(700)));
    const auto ms = elapsed_ms(t0);
    Restore kill_it([&] {
        const int pid = std::atoi(result.out.c_str());
        if (pid > 1) ::kill(pid, SIGKILL);  // the hosts share this machine's pid namespace
    });
    EXPECT_TRUE(result.timed_out);
    EXPECT_TRUE(result.transport_error.empty()) << result.transport_error;
    EXPECT_EQ(result.exit_code, -1);
    EXPECT_FALSE(result.ok());
    EXPECT_GE(ms, 600);
    EXPECT_LT(ms, 2000);
    EXPECT_NE(
        debug_log.str().find("timed out while reading its output (" + std::to_string(result.out.size()) +
                             " bytes of stdout, 0 of stderr; stdin 0/0 bytes and EOF)"),
        std::string::npos)
        << debug_log.str();
    // The node stays usable: the abandoned command's connection was dropped, a new one is opened.
    const auto after = executor.run(cluster.node(7), sh("echo still here"));
    EXPECT_TRUE(after.ok()) << exec::failure_reason(after);
    EXPECT_EQ(after.out, "still here\n");
    EXPECT_EQ(executor.connections_opened(), 2u);
}

TEST_F(SshExecutorTest, UploadStreamsOverSftpWithModeAndReplacesAnExistingFile) {
    SshExecutor executor(cluster.options());
    std::string data(300 * 1024 + 17, '\0');
    std::mt19937 random(7);
    for (auto& c : data) c = static_cast<char>(random());
    const auto local_file = temp / "payload.bin";
    spit(local_file, data);
    const std::string remote = "/root/pdctl-put-test.bin";
    Restore remove_remote([&] {
        executor.run(cluster.node(2), Command{{"rm", "-f", remote}, {}, std::chrono::seconds(10)});
    });

    for (int round = 0; round < 2; ++round) {  // the second upload replaces the first
        const auto put =
            executor.upload(cluster.node(2), local_file.string(), remote, 0640, std::chrono::seconds(30));
        ASSERT_TRUE(put.ok()) << put.error;
        EXPECT_EQ(put.bytes, data.size());
    }
    const auto check = executor.run(
        cluster.node(2), Command{{"sh", "-c", "stat -c %a \"$1\"; cat \"$1\"; ls /root", "sh", remote},
                                 {},
                                 std::chrono::seconds(10)});
    ASSERT_TRUE(check.ok()) << check.err;
    EXPECT_EQ(check.out.substr(0, 4), "640\n");
    EXPECT_TRUE(check.out.substr(4, data.size()) == data);
    // Each host has its own /root: host 3 does not see the file.
    const auto other =
        executor.run(cluster.node(3), Command{{"test", "-e", remote}, {}, std::chrono::seconds(10)});
    EXPECT_EQ(other.exit_code, 1);

    const auto missing_dir = executor.upload(cluster.node(2), local_file.string(), "/root/no/such/dir/file",
                                             0600, std::chrono::seconds(30));
    EXPECT_FALSE(missing_dir.ok());
    EXPECT_FALSE(missing_dir.transport_failed);
    EXPECT_NE(missing_dir.error.find("pdt2"), std::string::npos) << missing_dir.error;
}

}  // namespace
}  // namespace pdctl::testing
