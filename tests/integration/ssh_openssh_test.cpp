// The OpenSSH transport against the real sshd hosts of the SSH test cluster: commands over one
// ControlMaster per node, deadlines, upload, host keys refused exactly as on the libssh2 path, and
// what only OpenSSH can do here: the bastion, an RSA key, a user certificate with a host CA.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "pdctl/exec/openssh_executor.hpp"
#include "pdctl/exec/ssh_transports.hpp"
#include "ssh_cluster.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::OpenSshExecutor;
using exec::OpenSshOptions;
using namespace std::chrono_literals;

// The pids of the ssh processes whose command line names `needle` (a control directory, a socket):
// what must be gone once an executor has ended. Zombies do not count.
std::vector<pid_t> live_ssh_processes_with(const std::string& needle) {
    std::vector<pid_t> pids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmdline = slurp(entry.path() / "cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        const std::string stat = slurp(entry.path() / "stat");
        const auto close = stat.rfind(')');
        const bool zombie = close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z';
        const std::string program = cmdline.substr(0, cmdline.find(' '));
        const bool ssh = program == "ssh" || program.ends_with("/ssh");
        if (!zombie && ssh && cmdline.find(needle) != std::string::npos) pids.push_back(std::stoi(name));
    }
    return pids;
}

int live_ssh_processes_naming(const std::string& needle) {
    return static_cast<int>(live_ssh_processes_with(needle).size());
}

class SshOpenSshTest : public SshClusterTest {
  protected:
    void SetUp() override {
        SshClusterTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        // -F: nothing of this machine's ~/.ssh/config or /etc/ssh/ssh_config (OpenSSH reads the
        // passwd home, not $HOME).
        ssh_config = (temp / "ssh_config").string();
        spit(ssh_config, "");
    }

    OpenSshOptions options() const {
        OpenSshOptions options;
        options.ssh_config = ssh_config;
        options.known_hosts = cluster.known_hosts;
        options.connect_timeout = 5s;
        options.home = cluster.dir;
        return options;
    }

    static Command command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout = 20s) {
        return Command{argv, {}, timeout};
    }

    std::string ssh_config;
};

TEST_F(SshOpenSshTest, CommandsRunOverOneMasterPerNodeWithBothStreamsAndExitCodes) {
    OpenSshExecutor executor(options());
    for (int i = 1; i <= 8; ++i) {
        const auto answer = executor.run(cluster.node(i), command({"hostname"}));
        ASSERT_TRUE(answer.ok()) << answer.transport_error << answer.err;
        EXPECT_EQ(answer.out, host(i).name + "\n");
    }
    const auto t0 = Clock::now();
    for (int k = 0; k < 20; ++k) ASSERT_TRUE(executor.run(cluster.node(1), command({"true"})).ok());
    const auto per_command_ms = elapsed_ms(t0) / 20;
    EXPECT_EQ(executor.connections_opened(), 8u) << "one master per node, reused by every command";
    std::printf("[ timing ] openssh: %lld ms per command over the master\n", per_command_ms);

    const auto streams =
        executor.run(cluster.node(2), command({"sh", "-c", "echo out; echo err >&2; exit 3"}));
    EXPECT_TRUE(streams.transport_error.empty()) << streams.transport_error;
    EXPECT_EQ(streams.exit_code, 3);
    EXPECT_EQ(streams.out, "out\n");
    EXPECT_EQ(streams.err, "err\n");
    // 255 is the remote command's own status here, not a lost connection.
    const auto own_255 = executor.run(cluster.node(2), command({"sh", "-c", "exit 255"}));
    EXPECT_TRUE(own_255.transport_error.empty()) << own_255.transport_error;
    EXPECT_EQ(own_255.exit_code, 255);

    Command with_stdin = command({"sh", "-c", "cat; printf '|%s|' \"$1\"", "sh", "it's a \"quoted\" $arg"});
    with_stdin.stdin_data = std::string("binary\0data\n", 12);
    const auto echoed = executor.run(cluster.node(3), with_stdin);
    EXPECT_TRUE(echoed.ok()) << echoed.err << exec::failure_reason(echoed);
    EXPECT_EQ(echoed.out, std::string("binary\0data\n", 12) + "|it's a \"quoted\" $arg|");
}

TEST_F(SshOpenSshTest, ACommandPastItsDeadlineTimesOutAndTheNodeStaysUsable) {
    OpenSshExecutor executor(options());
    ASSERT_TRUE(executor.run(cluster.node(4), command({"true"})).ok());
    const auto t0 = Clock::now();
    const auto slow = executor.run(cluster.node(4), command({"sleep", "30"}, 1s));
    EXPECT_TRUE(slow.timed_out);
    EXPECT_LT(elapsed_ms(t0), 10000);
    const auto after = executor.run(cluster.node(4), command({"echo", "still here"}));
    EXPECT_TRUE(after.ok()) << exec::failure_reason(after);
    EXPECT_EQ(after.out, "still here\n");
    EXPECT_EQ(executor.connections_opened(), 1u);
}

TEST_F(SshOpenSshTest, UploadArrivesWholeWithItsModeAndAFailedOneLeavesNothing) {
    const auto local = temp / "payload.bin";
    {
        std::ofstream out(local, std::ios::binary);
        for (int i = 0; i < 3 * 1024 * 1024; ++i) out.put(static_cast<char>(i * 7));
    }
    OpenSshExecutor executor(options());
    const auto sent = executor.upload(cluster.node(5), local.string(), "/root/payload.bin", 0640, 60s);
    ASSERT_TRUE(sent.ok()) << sent.error;
    EXPECT_EQ(sent.bytes, 3u * 1024 * 1024);
    const auto check =
        executor.run(cluster.node(5),
                     command({"sh", "-c", "stat -c %a /root/payload.bin; sha256sum < /root/payload.bin"}));
    const auto expected = SshClusterTest::local({"sh", "-c", "sha256sum < " + local.string()}).out;
    EXPECT_EQ(check.out, "640\n" + expected);

    const auto refused = executor.upload(cluster.node(5), local.string(), "/nonexistent/dir/x", 0600, 60s);
    EXPECT_FALSE(refused.ok());
    EXPECT_FALSE(refused.transport_failed);
    EXPECT_NE(refused.error.find(host(5).name + ": cannot write /nonexistent/dir/x"), std::string::npos)
        << refused.error;
    executor.run(cluster.node(5), command({"rm", "-f", "/root/payload.bin"}));
}

TEST_F(SshOpenSshTest, HostKeysAreVerifiedExactlyAsOnTheLibssh2Path) {
    // host 2 recorded with host 1's key: changed, refused, even with accept-new.
    std::string changed;
    std::istringstream lines(slurp(cluster.known_hosts));
    std::string line, host1_key;
    while (std::getline(lines, line))
        if (line.rfind(host(1).address + " ", 0) == 0) host1_key = line.substr(host(1).address.size());
    std::istringstream again(slurp(cluster.known_hosts));
    while (std::getline(again, line))
        changed += (line.rfind(host(2).address + " ", 0) == 0 ? host(2).address + host1_key : line) + "\n";
    const auto changed_file = (temp / "known_hosts_changed").string();
    spit(changed_file, changed);
    for (const bool accept_new : {false, true}) {
        auto opts = options();
        opts.known_hosts = changed_file;
        opts.accept_new_host_keys = accept_new;
        OpenSshExecutor executor(opts);
        const auto answer = executor.run(cluster.node(2), command({"true"}));
        EXPECT_NE(
            answer.transport_error.find(host(2).name + " (" + host(2).address + ":22): HOST KEY CHANGED"),
            std::string::npos)
            << answer.transport_error;
        EXPECT_NE(answer.transport_error.find(openssh_fingerprint(host(2).host_key_pub)), std::string::npos)
            << "names the key the host presents: " << answer.transport_error;
        EXPECT_NE(answer.transport_error.find("ssh-keygen -R"), std::string::npos) << answer.transport_error;
        EXPECT_EQ(slurp(changed_file), changed) << "a changed key is never written";
    }
    // Unknown host: refused; with accept-new, trusted and recorded.
    const auto empty_file = (temp / "known_hosts_empty").string();
    spit(empty_file, "");
    auto opts = options();
    opts.known_hosts = empty_file;
    {
        OpenSshExecutor executor(opts);
        const auto answer = executor.run(cluster.node(3), command({"true"}));
        EXPECT_NE(answer.transport_error.find("unknown host " + host(3).address), std::string::npos)
            << answer.transport_error;
    }
    opts.accept_new_host_keys = true;
    OpenSshExecutor executor(opts);
    EXPECT_TRUE(executor.run(cluster.node(3), command({"true"})).ok());
    EXPECT_NE(slurp(empty_file).find("ssh-ed25519"), std::string::npos) << slurp(empty_file);
}

TEST_F(SshOpenSshTest, AnUnreachableNodeIsNamedWithItsCauseOnceAndLaterCommandsFailAtOnce) {
    OpenSshExecutor executor(options());
    // Port 2022 answers only the bastion: from here it is refused.
    const auto refused = executor.run(cluster.node(6, cluster.behind_port), command({"true"}));
    EXPECT_NE(refused.transport_error.find("connection refused"), std::string::npos)
        << refused.transport_error;
    EXPECT_NE(refused.transport_error.find(host(6).name), std::string::npos) << refused.transport_error;
    const auto t0 = Clock::now();
    const auto again = executor.run(cluster.node(6, cluster.behind_port), command({"true"}));
    EXPECT_EQ(again.transport_error, refused.transport_error);
    EXPECT_LT(elapsed_ms(t0), 200) << "the second command must not connect again";
}

TEST_F(SshOpenSshTest, TheBastionIsTheWayToTheHostsOnTheirBehindPort) {
    spit(ssh_config, "Host * \n  UserKnownHostsFile " + cluster.behind_known_hosts +
                         "\n  StrictHostKeyChecking yes\n  BatchMode yes\n  IdentityFile " + cluster.key +
                         "\nHost " + host(7).address + " " + host(8).address + "\n  Port " +
                         std::to_string(cluster.behind_port) + "\n  ProxyJump root@" +
                         cluster.bastion_address + "\n");
    auto opts = options();
    opts.known_hosts = cluster.behind_known_hosts;
    OpenSshExecutor executor(opts);
    for (const int i : {7, 8}) {
        const auto answer = executor.run(cluster.node(i), command({"hostname"}));
        ASSERT_TRUE(answer.ok()) << answer.transport_error << answer.err;
        EXPECT_EQ(answer.out, host(i).name + "\n");
    }
    // The decision `auto` takes for them, and why.
    auto ssh = cluster.options();
    ssh.ssh_config = ssh_config;
    ssh.known_hosts = cluster.behind_known_hosts;
    exec::SshTransports transports(ssh, opts);
    const auto behind = transports.choice_for(cluster.node(7));
    EXPECT_EQ(behind.transport, exec::Transport::OpenSsh);
    EXPECT_NE(behind.reason.find("ProxyJump root@"), std::string::npos) << behind.reason;
    EXPECT_EQ(transports.choice_for(cluster.node(1)).transport, exec::Transport::Libssh2)
        << transports.choice_for(cluster.node(1)).reason;
    const auto through = transports.run(cluster.node(8), command({"hostname"}));
    EXPECT_EQ(through.out, host(8).name + "\n") << through.transport_error;
}

// The jump host is checked like a node: against pdctl's known_hosts, in batch mode, although the ssh
// config below says nothing of either (the `ssh -W` of a ProxyJump never sees pdctl's -o options; it
// reads the same -F file, which carries them). Without the bastion's key, the node is unreachable and
// the message names the bastion (issue 32).
TEST_F(SshOpenSshTest, TheBastionsKeyIsCheckedAgainstPdctlsKnownHostsLikeANodes) {
    spit(ssh_config, "Host " + host(7).address + "\n  Port " + std::to_string(cluster.behind_port) +
                         "\n  ProxyJump root@" + cluster.bastion_address + "\nHost *\n  IdentityFile " +
                         cluster.key + "\n");
    auto opts = options();
    opts.known_hosts = cluster.behind_known_hosts;
    {
        OpenSshExecutor executor(opts);
        const auto answer = executor.run(cluster.node(7), command({"hostname"}));
        EXPECT_EQ(answer.out, host(7).name + "\n") << answer.transport_error << answer.err;
    }
    // The same file without the bastion's line.
    std::istringstream all(slurp(cluster.behind_known_hosts));
    std::string without;
    for (std::string line; std::getline(all, line);)
        if (line.rfind(cluster.bastion_address + " ", 0) != 0) without += line + "\n";
    const auto known = (temp / "known_hosts_without_the_bastion").string();
    spit(known, without);
    opts.known_hosts = known;
    OpenSshExecutor executor(opts);
    const auto refused = executor.run(cluster.node(7), command({"hostname"}));
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.transport_error.find("unknown host " + cluster.bastion_address + ": " + known),
              std::string::npos)
        << refused.transport_error;
    EXPECT_EQ(slurp(known), without) << "a key is never added without --accept-new-host-keys";
}

TEST_F(SshOpenSshTest, AnRsaKeyAndACertificateWorkWhereLibssh2CannotLogIn) {
    auto rsa = cluster.node(1);
    rsa.ssh.identity = cluster.rsa_key;
    auto cert = cluster.node(2);
    cert.ssh.identity = cluster.cert_key;
    {
        OpenSshExecutor executor(options());
        const auto answer = executor.run(rsa, command({"hostname"}));
        EXPECT_EQ(answer.out, host(1).name + "\n") << answer.transport_error;
    }
    // The host CA alone vouches for the hosts; the user certificate alone logs in.
    auto ca = options();
    ca.known_hosts = cluster.ca_known_hosts;
    OpenSshExecutor executor(ca);
    const auto answer = executor.run(cert, command({"hostname"}));
    EXPECT_EQ(answer.out, host(2).name + "\n") << answer.transport_error;

    auto libssh2_options = cluster.options();
    exec::SshExecutor libssh2(libssh2_options);
    EXPECT_FALSE(libssh2.run(rsa, command({"true"})).transport_error.empty());
    libssh2_options.known_hosts = cluster.ca_known_hosts;
    exec::SshExecutor libssh2_ca(libssh2_options);
    EXPECT_FALSE(libssh2_ca.run(cert, command({"true"})).transport_error.empty());

    auto ssh = cluster.options();
    ssh.ssh_config = ssh_config;
    ssh.known_hosts = cluster.ca_known_hosts;
    exec::SshTransports transports(ssh, ca);
    const auto chosen = transports.choice_for(cert);
    EXPECT_EQ(chosen.transport, exec::Transport::OpenSsh);
    EXPECT_NE(chosen.reason.find("certificate " + cluster.cert_key + "-cert.pub"), std::string::npos)
        << chosen.reason;
    ssh.known_hosts = cluster.known_hosts;
    exec::SshTransports plain(ssh, options());
    EXPECT_NE(plain.choice_for(rsa).reason.find("RSA key " + cluster.rsa_key + " only"), std::string::npos)
        << plain.choice_for(rsa).reason;
}

TEST_F(SshOpenSshTest, NothingOfTheExecutorOutlivesIt) {
    std::string control_dir;
    {
        OpenSshExecutor executor(options());
        for (int i = 1; i <= 3; ++i) ASSERT_TRUE(executor.run(cluster.node(i), command({"true"})).ok());
        control_dir = executor.control_dir();
        int sockets = 0;
        for (const auto& entry : std::filesystem::directory_iterator(control_dir))
            sockets += entry.is_socket();
        EXPECT_EQ(sockets, 3) << control_dir;
        struct stat info {};
        ASSERT_EQ(::stat(control_dir.c_str(), &info), 0);
        EXPECT_EQ(info.st_mode & 0777, 0700u) << "the control sockets' directory is private";
        EXPECT_EQ(live_ssh_processes_naming(control_dir), 3) << "one master per node";
    }
    EXPECT_FALSE(std::filesystem::exists(control_dir));
    EXPECT_EQ(live_ssh_processes_naming(control_dir), 0);
}

// Polls `done` every 20 ms until it holds or `timeout` passes; returns whether it held.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!done()) {
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(20ms);
    }
    return true;
}

// Options for masters that stay after the executor (what the binary does by default), in this
// test's control directory.
OpenSshOptions staying(OpenSshOptions options, const std::string& control_dir) {
    options.persist = 60s;
    options.control_dir = control_dir;
    return options;
}

// The sshd processes on a test host: those of its connections (privileged monitor and session,
// "sshd: root..."), which a node does not answer with once they are stopped, or else its listeners,
// which accept new connections.
enum class Sshd { kConnections, kListeners };
std::vector<pid_t> sshd_pids(const std::string& netns, Sshd which) {
    std::vector<pid_t> pids;
    exec::LocalExecutor local;
    const auto listed = local.run(config::Node{}, Command{{"ip", "netns", "pids", netns}, {}, 10s});
    std::istringstream lines(listed.out);
    for (std::string pid; lines >> pid;) {
        if (!slurp("/proc/" + pid + "/comm").starts_with("sshd")) continue;
        const bool connection = slurp("/proc/" + pid + "/cmdline").starts_with("sshd: root");
        if (connection == (which == Sshd::kConnections)) pids.push_back(std::stoi(pid));
    }
    return pids;
}

TEST_F(SshOpenSshTest, MastersThatStayServeTheNextRunWithoutAHandshakeUntilClosed) {
    std::string directory;
    {
        OpenSshExecutor first(staying(options(), ssh_control_dir));
        for (int i = 1; i <= 3; ++i) ASSERT_TRUE(first.run(cluster.node(i), command({"true"})).ok());
        EXPECT_EQ(first.connections_opened(), 3u);
        directory = first.control_dir();
    }
    EXPECT_EQ(directory, ssh_control_dir);
    EXPECT_EQ(live_ssh_processes_naming(ssh_control_dir), 3) << "the masters outlive the executor";

    OpenSshExecutor second(staying(options(), ssh_control_dir));
    for (int i = 1; i <= 3; ++i) {
        const auto answer = second.run(cluster.node(i), command({"hostname"}));
        ASSERT_TRUE(answer.ok()) << exec::failure_reason(answer);
        EXPECT_EQ(answer.out, host(i).name + "\n");
    }
    EXPECT_EQ(second.connections_opened(), 0u) << "no new connection: the first run's masters serve";
    EXPECT_EQ(second.connections_reused(), 3u);
    EXPECT_EQ(live_ssh_processes_naming(ssh_control_dir), 3) << "still one master per node";

    // Another known_hosts file is another policy: its own masters, never the first policy's.
    auto other = staying(options(), ssh_control_dir);
    other.known_hosts = (temp / "known_hosts_copy").string();
    std::filesystem::copy_file(cluster.known_hosts, other.known_hosts);
    OpenSshExecutor third(other);
    ASSERT_TRUE(third.run(cluster.node(1), command({"true"})).ok());
    EXPECT_EQ(third.connections_opened(), 1u);
    EXPECT_EQ(third.close_masters(), 1u);

    EXPECT_EQ(second.close_masters(), 3u);
    EXPECT_TRUE(eventually([&] { return live_ssh_processes_naming(ssh_control_dir) == 0; }, 5s))
        << live_ssh_processes_naming(ssh_control_dir) << " masters left after close";
    EXPECT_TRUE(exec::close_masters_in(ssh_control_dir).empty()) << "closed masters leave no socket";
}

// A master an earlier run left can be dead (killed: its socket stays) or alive on a connection that
// no longer answers (the node rebooted, a firewall dropped it). Either way the next run's command
// runs, on a new master, and the old one is gone.
TEST_F(SshOpenSshTest, AMasterLeftDeadOrOnASilentConnectionIsReplaced) {
    auto opts = staying(options(), ssh_control_dir);
    opts.connect_timeout = 2s;
    {
        OpenSshExecutor first(opts);
        ASSERT_TRUE(first.run(cluster.node(1), command({"true"})).ok());
        ASSERT_TRUE(first.run(cluster.node(2), command({"true"})).ok());
    }
    const auto masters_of = [&](int i) { return live_ssh_processes_with("-- " + host(i).address); };
    ASSERT_EQ(masters_of(1).size(), 1u);
    ASSERT_EQ(masters_of(2).size(), 1u);
    ::kill(masters_of(1).front(), SIGKILL);  // its socket stays behind
    const pid_t silent = masters_of(2).front();
    const auto stopped = sshd_pids(host(2).netns, Sshd::kConnections);
    ASSERT_FALSE(stopped.empty()) << "no sshd of the master's connection in " << host(2).netns;
    for (const pid_t pid : stopped) ::kill(pid, SIGSTOP);

    OpenSshExecutor second(opts);
    const auto t0 = Clock::now();
    const auto after_kill = second.run(cluster.node(1), command({"hostname"}));
    const auto after_silence = second.run(cluster.node(2), command({"hostname"}));
    const auto waited_ms = elapsed_ms(t0);
    for (const pid_t pid : stopped) ::kill(pid, SIGCONT);
    EXPECT_TRUE(after_kill.ok()) << exec::failure_reason(after_kill);
    EXPECT_EQ(after_kill.out, host(1).name + "\n");
    EXPECT_TRUE(after_silence.ok()) << exec::failure_reason(after_silence);
    EXPECT_EQ(after_silence.out, host(2).name + "\n");
    EXPECT_EQ(second.connections_opened(), 2u);
    // The silent master cost one connect timeout (2 s) before it was replaced, not the command's 20 s.
    EXPECT_LT(waited_ms, 12000);
    EXPECT_TRUE(eventually([&] { return masters_of(2).size() == 1 && masters_of(2).front() != silent; }, 5s))
        << "the silent master is still there next to the new one";
    EXPECT_EQ(masters_of(1).size(), 1u);
}

// A master that stays, killed between two commands of a run, is replaced for the next command
// without a failure (the command was never sent); killed while a command runs, that command's
// connection is lost and the next one gets a new master, as with a run's own masters.
TEST_F(SshOpenSshTest, AMasterThatStaysAndDiesMidRunIsReplacedForTheNextCommand) {
    OpenSshExecutor executor(staying(options(), ssh_control_dir));
    ASSERT_TRUE(executor.run(cluster.node(3), command({"true"})).ok());
    const auto master = [&] { return live_ssh_processes_with("-- " + host(3).address); };
    ASSERT_EQ(master().size(), 1u);
    ::kill(master().front(), SIGKILL);
    const auto between = executor.run(cluster.node(3), command({"hostname"}));
    EXPECT_TRUE(between.ok()) << exec::failure_reason(between);
    EXPECT_EQ(between.out, host(3).name + "\n");
    EXPECT_EQ(executor.connections_opened(), 2u);

    ASSERT_EQ(master().size(), 1u);
    const pid_t second = master().front();
    std::thread killer([&] {
        // Only once the long command runs on the host is the master killed.
        const bool running = eventually(
            [&] {
                return executor.run(cluster.node(3), command({"pgrep", "-f", "sleep 31"})).ok();
            },
            20s);
        EXPECT_TRUE(running) << "the long command never started";
        ::kill(second, SIGKILL);
    });
    const auto lost = executor.run(cluster.node(3), command({"sleep", "31"}, 40s));
    killer.join();
    EXPECT_NE(lost.transport_error.find("connection lost"), std::string::npos) << lost.transport_error;
    const auto after = executor.run(cluster.node(3), command({"hostname"}));
    EXPECT_TRUE(after.ok()) << exec::failure_reason(after);
    EXPECT_EQ(executor.connections_opened(), 3u);
    EXPECT_EQ(executor.close_masters(), 1u);
}

// pdctl speaks OpenSSH's mux protocol to the master itself (no `ssh` per command): megabytes on all
// three streams at once, a command killed by a signal told from a master that is gone, and a master
// that ended replaced by a new one for the next command.
TEST_F(SshOpenSshTest, TheMuxSessionsCarryBigStreamsSignalsAndALostMaster) {
    OpenSshExecutor executor(options());
    Command big = command({"sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' e >&2 & wc -c; wait"}, 60s);
    big.stdin_data = std::string(5'000'000, 'x');
    const auto streams = executor.run(cluster.node(1), big);
    ASSERT_TRUE(streams.ok()) << streams.transport_error << " exit " << streams.exit_code;
    EXPECT_EQ(streams.out, "5000000\n");
    EXPECT_EQ(streams.err, std::string(3'000'000, 'e'));

    // sshd sends no exit status for a command killed by a signal: 255 with the master alive, as `ssh`
    // itself would exit, and not a transport failure.
    const auto killed = executor.run(cluster.node(1), command({"sh", "-c", "echo before; kill -KILL $$"}));
    EXPECT_TRUE(killed.transport_error.empty()) << killed.transport_error;
    EXPECT_EQ(killed.exit_code, 255);
    EXPECT_EQ(killed.out, "before\n");

    // The master killed while a command runs: that command's connection is lost, naming the node;
    // the next command gets a new master.
    const std::string socket = executor.control_dir() + "/1.sock";
    const auto masters = live_ssh_processes_with(socket);
    ASSERT_EQ(masters.size(), 1u) << socket;
    const std::string marker = "/tmp/pdctl-mux-test-running";
    ASSERT_TRUE(executor.run(cluster.node(1), command({"rm", "-f", marker})).ok());
    std::thread killer([&] {
        // Only once the command below runs on the host (its marker is there) is the master killed.
        const bool running = eventually(
            [&] {
                return executor.run(cluster.node(1), command({"test", "-e", marker})).ok();
            },
            20s);
        EXPECT_TRUE(running) << "the long command never started";
        ::kill(masters.front(), SIGKILL);
    });
    const auto lost = executor.run(
        cluster.node(1), command({"sh", "-c", "touch " + marker + "; sleep 30; rm -f " + marker}, 40s));
    killer.join();
    EXPECT_NE(lost.transport_error.find(host(1).name), std::string::npos) << lost.transport_error;
    EXPECT_NE(lost.transport_error.find("connection lost"), std::string::npos) << lost.transport_error;
    EXPECT_EQ(lost.exit_code, -1);
    const auto after = executor.run(cluster.node(1), command({"hostname"}));
    EXPECT_TRUE(after.ok()) << exec::failure_reason(after);
    EXPECT_EQ(after.out, host(1).name + "\n");
    EXPECT_EQ(executor.connections_opened(), 2u);
    executor.run(cluster.node(1), command({"rm", "-f", marker}));
}

// pdctl killed with SIGKILL in the middle of `status` (one node still in its handshake) leaves the
// masters it had finished, which stay for the next run; the handshake it was in ends with it
// (PR_SET_PDEATHSIG). The next `status` uses those masters, starts only the missing one, and leaves
// exactly one master per node; `stop` ends them all, and `pdctl ssh close` then finds none.
TEST_F(SshOpenSshTest, APdctlKilledMidStatusLeavesOneMasterPerNodeForTheNextRun) {
    std::string yaml =
        slurp(std::filesystem::path(pdctl::testing::source_dir()) / "tests/profiles/ssh-podman/pdctl.yaml");
    const std::string from = "identity: /tmp/pdctl-test-cluster/client/id_ed25519}";
    ASSERT_NE(yaml.find(from), std::string::npos);
    yaml.replace(yaml.find(from), from.size(), "identity: " + cluster.key + ", transport: openssh}");
    use_cluster_addresses(yaml);
    const auto profile = temp / "profile";
    std::filesystem::create_directories(profile);
    for (const auto& entry : std::filesystem::directory_iterator(
             std::filesystem::path(pdctl::testing::source_dir()) / "tests/profiles/ssh-podman"))
        std::filesystem::copy_file(entry.path(), profile / entry.path().filename());
    spit(profile / "pdctl.yaml", yaml);

    const std::vector<std::string> env = {
        "HOME=" + temp.string(), "PATH=/usr/bin:/bin", "PDCTL_KNOWN_HOSTS=" + cluster.known_hosts,
        "PDCTL_SSH_CONFIG=" + ssh_config, "PDCTL_SSH_CONTROL_DIR=" + ssh_control_dir};
    const auto run_pdctl = [&](const std::vector<std::string>& args) {
        Command run;
        run.argv = {"env"};
        run.argv.insert(run.argv.end(), env.begin(), env.end());
        run.argv.insert(run.argv.end(),
                        {pdctl::testing::pdctl_binary(), "-c", (profile / "pdctl.yaml").string()});
        run.argv.insert(run.argv.end(), args.begin(), args.end());
        run.timeout = 60s;
        return exec::LocalExecutor().run(config::Node{}, run);
    };
    const auto sockets = [&] {
        int count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(ssh_control_dir))
            count += entry.is_socket();
        return count;
    };
    const auto masters = [&] { return live_ssh_processes_naming("ControlPath=" + ssh_control_dir); };

    // Host 8 accepts no connection for now: status waits in its handshake when it is killed.
    const auto frozen = sshd_pids(host(8).netns, Sshd::kListeners);
    ASSERT_FALSE(frozen.empty()) << "no sshd listener in " << host(8).netns;
    for (const pid_t pid : frozen) ::kill(pid, SIGSTOP);
    const std::vector<std::string> argv = {pdctl::testing::pdctl_binary(), "-c",
                                           (profile / "pdctl.yaml").string(), "status"};
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::vector<char*> args, envp;
        for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
        args.push_back(nullptr);
        envp.push_back(nullptr);
        const int null_fd = ::open("/dev/null", O_RDWR);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ASSERT_GT(pid, 0);
    const bool seven_up = eventually([&] { return sockets() >= 7; }, 20s);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    for (const pid_t frozen_pid : frozen) ::kill(frozen_pid, SIGCONT);
    ASSERT_TRUE(seven_up) << "pdctl status did not connect to nodes 1-7 over OpenSSH";
    EXPECT_TRUE(eventually([&] { return masters() == 7; }, 5s))
        << masters() << " ssh processes after the kill: the 7 masters stay, the 8th handshake ends";

    const auto next = run_pdctl({"status"});
    EXPECT_NE(next.exit_code, 3) << next.out << next.err;  // 3: a node unreachable
    EXPECT_EQ(next.err.find("connection lost"), std::string::npos) << next.err;
    EXPECT_EQ(masters(), 8) << "one master per node after the next run";
    EXPECT_EQ(sockets(), 8);

    const auto stopped = run_pdctl({"stop"});
    EXPECT_EQ(stopped.exit_code, 0) << stopped.out << stopped.err;
    EXPECT_TRUE(eventually([&] { return masters() == 0; }, 5s)) << masters() << " masters left after stop";
    const auto closed = run_pdctl({"ssh", "close"});
    EXPECT_EQ(closed.exit_code, 0) << closed.err;
    EXPECT_EQ(closed.out, "no OpenSSH masters in " + ssh_control_dir + "\n");
}

}  // namespace
}  // namespace pdctl::testing
