#pragma once
// The SSH test cluster (tests/cluster/up.sh: real sshd hosts in network namespaces) as the SSH
// integration tests see it. Tests derive their fixture from SshClusterTest: without root (or without
// the cluster) they skip with the reason; in CI as root a missing cluster fails instead, so CI proves
// the SSH tests ran. Only the cluster's own addresses (10.77.0.0/24) are ever contacted.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/local_executor.hpp"
#include "pdctl/exec/openssh_masters.hpp"
#include "pdctl/exec/ssh_executor.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

inline std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

inline void spit(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

struct SshTestHost {
    std::string name;     // also the hostname inside the host
    std::string address;  // 10.77.0.i
    std::string netns;
    std::string veth;  // root-namespace end of the host's link
    std::string dir;
    std::string host_key_pub;  // ed25519 host key, .pub
};

struct SshTestCluster {
    std::vector<SshTestHost> hosts;
    std::string dir, key, ecdsa_key, ecdsa_passphrase_file, rsa_key, wrong_key, known_hosts;
    std::string cert_key;            // logs in only with its certificate (cert_key + "-cert.pub")
    std::string ca_known_hosts;      // trusts the hosts only through the host CA (@cert-authority)
    std::string bastion_address;     // the jump host (host0 of up.sh)
    int behind_port = 0;             // every host's sshd on this port answers the bastion only
    std::string behind_known_hosts;  // the direct keys, the [host]:behind_port keys and the bastion's

    // Host i (1-based) as a pdctl node using the cluster's ed25519 client key.
    config::Node node(int i, int port = 22) const {
        config::Node node;
        node.name = hosts.at(static_cast<std::size_t>(i - 1)).name;
        node.address = hosts.at(static_cast<std::size_t>(i - 1)).address;
        node.ssh.port = port;
        node.ssh.identity = key;
        return node;
    }
    // Options that depend on nothing of the machine's user: the cluster's known_hosts, no ssh config,
    // no agent, no default keys. The connect bound is for the harness's own checks, which expect to
    // connect: 30 s, since under ASan beside the gcc tests a handshake took over 5 s (the key exchange
    // is CPU work); the tests of connect timeouts set their own.
    exec::SshOptions options() const {
        exec::SshOptions options;
        options.known_hosts = known_hosts;
        options.connect_timeout = std::chrono::seconds(30);
        options.home = dir;
        return options;
    }
};

inline std::filesystem::path ssh_cluster_env_path() {
    const char* dir = std::getenv("PDCTL_TEST_CLUSTER_DIR");
    return std::filesystem::path(dir && *dir ? dir : "/tmp/pdctl-test-cluster") / "cluster.env";
}

// The KEY=VALUE lines of the cluster's env file (up.sh and podman-image.sh write them).
inline std::map<std::string, std::string> read_cluster_env(const std::filesystem::path& env_file) {
    std::map<std::string, std::string> env;
    std::istringstream in(slurp(env_file));
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
        env[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return env;
}

inline SshTestCluster load_ssh_cluster(const std::filesystem::path& env_file) {
    auto env = read_cluster_env(env_file);
    SshTestCluster cluster;
    cluster.dir = env["PDT_DIR"];
    cluster.key = env["PDT_KEY"];
    cluster.ecdsa_key = env["PDT_ECDSA_KEY"];
    cluster.ecdsa_passphrase_file = env["PDT_ECDSA_PASSPHRASE_FILE"];
    cluster.rsa_key = env["PDT_RSA_KEY"];
    cluster.wrong_key = env["PDT_WRONG_KEY"];
    cluster.known_hosts = env["PDT_KNOWN_HOSTS"];
    cluster.cert_key = env["PDT_CERT_KEY"];
    cluster.ca_known_hosts = env["PDT_CA_KNOWN_HOSTS"];
    cluster.bastion_address = env["PDT_BASTION_ADDRESS"];
    cluster.behind_port = std::atoi(env["PDT_BEHIND_PORT"].c_str());
    cluster.behind_known_hosts = env["PDT_BEHIND_KNOWN_HOSTS"];
    const int count = std::atoi(env["PDT_HOSTS"].c_str());
    for (int i = 1; i <= count; ++i) {
        const std::string prefix = "PDT_HOST_" + std::to_string(i) + "_";
        cluster.hosts.push_back({env[prefix + "NAME"], env[prefix + "ADDRESS"], env[prefix + "NETNS"],
                                 env[prefix + "VETH"], env[prefix + "DIR"], env[prefix + "HOST_KEY"]});
    }
    return cluster;
}

using Clock = std::chrono::steady_clock;

inline long long elapsed_ms(Clock::time_point since) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// What one run of the pdctl binary printed, and how long it took.
struct ClusterRun {
    int exit_code = -1;
    std::string out, err;
    long long ms = 0;
    // The JSON Lines of --json progress output, all of them or only the events named `name`.
    std::vector<nlohmann::json> events(const std::string& name = {}) const {
        std::vector<nlohmann::json> found;
        std::istringstream in(out);
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty() || line[0] != '{') continue;
            auto event = nlohmann::json::parse(line, nullptr, false);
            if (name.empty() || (!event.is_discarded() && event.value("event", "") == name))
                found.push_back(std::move(event));
        }
        return found;
    }
    std::string dump() const {
        return "exit " + std::to_string(exit_code) + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
};

// Runs `fn` when the scope ends: every injected fault is undone by the test that injected it.
class Restore {
  public:
    explicit Restore(std::function<void()> fn) : fn_(std::move(fn)) {}
    ~Restore() {
        if (fn_) fn_();
    }
    Restore(const Restore&) = delete;
    Restore& operator=(const Restore&) = delete;

  private:
    std::function<void()> fn_;
};

// SIGTERM to a process this test started, then a bounded wait for its exit (pidfd, no polling).
inline void stop_test_process(int pid) {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    ::kill(pid, SIGTERM);
    if (pidfd < 0) return;  // already gone
    pollfd exited{pidfd, POLLIN, 0};
    if (::poll(&exited, 1, 5000) == 0) ::kill(pid, SIGKILL);
    ::close(pidfd);
}

class SshClusterTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const bool root = ::geteuid() == 0;
        const char* ci = std::getenv("CI");
        const auto env_file = ssh_cluster_env_path();
        if (!std::filesystem::exists(env_file)) {
            if (root && ci && *ci) {
                FAIL() << "CI runs as root, so the SSH test cluster must be up, but " << env_file
                       << " is missing (the CTest fixture ssh_cluster_up runs tests/cluster/up.sh). "
                          "Refusing to skip the SSH tests in CI.";
            }
            GTEST_SKIP()
                << (root ? "the SSH test cluster is not up: run tests/cluster/up.sh first, or run "
                           "`ctest -L ssh`, whose fixture builds it"
                         : "needs root: the SSH test cluster runs real sshd hosts in network namespaces; "
                           "run `ctest -L ssh` as root");
        }
        if (!root) GTEST_SKIP() << "needs root: the SSH tests inject network faults into the test cluster";
        cluster = load_ssh_cluster(env_file);
        ASSERT_GE(cluster.hosts.size(), 8u) << "the SSH tests need 8 hosts (PDCTL_TEST_HOSTS >= 8)";
        temp = std::filesystem::temp_directory_path() /
               ("pdctl-ssh-it-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(temp);
        std::filesystem::create_directories(temp);
        // The OpenSSH masters pdctl leaves for the next run live here, not in the operator's
        // /tmp/pdctl-ssh-<uid>; short, as a socket path must be.
        std::string pattern = "/tmp/pdct-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        ssh_control_dir = pattern;
        // The executors a test builds in this process read it too (openssh_options_like).
        ::setenv("PDCTL_SSH_CONTROL_DIR", ssh_control_dir.c_str(), 1);
        for (const auto& host : cluster.hosts) {
            std::error_code absent;
            const auto size = std::filesystem::file_size(sshd_log(host), absent);
            sshd_log_offsets.push_back(absent ? 0 : size);
        }
    }
    void TearDown() override {
        if (HasFailure()) print_sshd_logs();
        std::error_code ignored;
        if (!ssh_control_dir.empty()) {
            ::unsetenv("PDCTL_SSH_CONTROL_DIR");
            exec::close_masters_in(ssh_control_dir);  // the masters a test left end with it
            std::filesystem::remove_all(ssh_control_dir, ignored);
        }
        if (!temp.empty()) std::filesystem::remove_all(temp, ignored);
    }

    static void stop_process(int pid) { stop_test_process(pid); }

    // A command on this machine (root namespace), e.g. to inject a fault; fails the test if it fails.
    static exec::CommandResult local(const std::vector<std::string>& argv, const std::string& stdin_data = {},
                                     std::chrono::seconds timeout = std::chrono::seconds(20)) {
        exec::LocalExecutor executor;
        exec::Command command{argv, stdin_data, timeout};
        auto result = executor.run(config::Node{}, command);
        EXPECT_TRUE(result.ok()) << argv[0] << " failed: " << exec::failure_reason(result);
        return result;
    }
    // A command inside host i's network namespace (nft rules).
    void in_host_netns(int i, const std::vector<std::string>& argv) const {
        std::vector<std::string> full = {"nsenter", "--net=/run/netns/" + host(i).netns};
        full.insert(full.end(), argv.begin(), argv.end());
        local(full);
    }
    const SshTestHost& host(int i) const { return cluster.hosts.at(static_cast<std::size_t>(i - 1)); }

    // tests/profiles/ssh-podman names the default cluster's addresses (10.77.0.N). This points its
    // nodes at this cluster's hosts, so that a run against another cluster (PDCTL_TEST_CLUSTER_DIR)
    // never starts anything on a cluster it was not given (such as a flake hunt's, at the default).
    void use_cluster_addresses(std::string& yaml) const {
        for (int i = 1; i <= 8; ++i) {
            const std::string from = "address: 10.77.0." + std::to_string(i) + "}";
            for (auto at = yaml.find(from); at != std::string::npos; at = yaml.find(from, at + 1))
                yaml.replace(at, from.size(), "address: " + host(i).address + "}");
        }
    }

    // SHA256 fingerprint of a public key file as OpenSSH computes it (an independent check).
    static std::string openssh_fingerprint(const std::string& pub_file) {
        const auto result = local({"ssh-keygen", "-l", "-E", "sha256", "-f", pub_file});
        std::istringstream fields(result.out);
        std::string bits, fingerprint;
        fields >> bits >> fingerprint;
        return fingerprint;
    }

    SshTestCluster cluster;
    std::filesystem::path temp;
    std::string ssh_control_dir;  // PDCTL_SSH_CONTROL_DIR of every pdctl this test runs

  private:
    static std::filesystem::path sshd_log(const SshTestHost& host) {
        return std::filesystem::path(host.dir) / "sshd.log";
    }
    // What each host's sshd logged during a failed test (the last lines): whether it accepted, refused
    // or dropped a connection is on the server's side only, and the logs go with the cluster.
    void print_sshd_logs() const {
        constexpr std::size_t kLastLines = 20;
        for (std::size_t i = 0; i < cluster.hosts.size() && i < sshd_log_offsets.size(); ++i) {
            std::ifstream log(sshd_log(cluster.hosts[i]), std::ios::binary);
            log.seekg(static_cast<std::streamoff>(sshd_log_offsets[i]));
            std::vector<std::string> lines;
            for (std::string line; std::getline(log, line);) lines.push_back(line);
            if (lines.empty()) continue;
            const auto first = lines.size() > kLastLines ? lines.size() - kLastLines : 0;
            std::cerr << "== sshd of " << cluster.hosts[i].name << " (" << cluster.hosts[i].address << "), "
                      << lines.size() << " lines during this test" << (first ? ", the last ones" : "")
                      << ":\n";
            for (auto line = lines.begin() + static_cast<std::ptrdiff_t>(first); line != lines.end(); ++line)
                std::cerr << "   " << *line << "\n";
        }
    }
    std::vector<std::uintmax_t> sshd_log_offsets;  // each host's sshd.log size when the test began
};

// For the tests that drive the pdctl binary against the cluster and look at the hosts themselves
// over an SSH executor of their own (push, pull, doctor, the scenarios).
class SshPdctlTest : public SshClusterTest {
  protected:
    void SetUp() override {
        SshClusterTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        executor = std::make_unique<exec::SshExecutor>(cluster.options());
    }

    // The real pdctl binary as an operator runs it against this cluster: a private HOME under `temp`
    // (no ssh config, no default keys), no ssh-agent, and the cluster's known_hosts.
    // Each home_name is another operator (e.g. two starts at once).
    ClusterRun pdctl(const std::filesystem::path& config, const std::vector<std::string>& args,
                     const std::string& home_name = "home",
                     std::chrono::seconds timeout = std::chrono::minutes(3)) const {
        const auto home = temp / home_name;
        std::filesystem::create_directories(home);
        exec::Command command;
        command.argv = {"env",
                        "-u",
                        "SSH_AUTH_SOCK",
                        "HOME=" + home.string(),
                        "PDCTL_KNOWN_HOSTS=" + cluster.known_hosts,
                        "PDCTL_SSH_CONTROL_DIR=" + ssh_control_dir};
        // Later assignments win: a test's PDCTL_KNOWN_HOSTS or PDCTL_SSH_CONFIG of its own.
        command.argv.insert(command.argv.end(), pdctl_env.begin(), pdctl_env.end());
        command.argv.insert(command.argv.end(), {pdctl::testing::pdctl_binary(), "-c", config.string()});
        command.argv.insert(command.argv.end(), args.begin(), args.end());
        command.timeout = timeout;
        const auto started = Clock::now();
        const auto result = exec::LocalExecutor().run(config::Node{}, command);
        return {result.exit_code, result.out, result.err, elapsed_ms(started)};
    }

    std::vector<std::string> pdctl_env;  // KEY=VALUE for every pdctl() run

    // command(i) on hosts 1..8 at once, over `executor` (which the fixture's SetUp creates); the
    // answers in host order.
    std::vector<exec::CommandResult> on_every_host(const std::function<exec::Command(int)>& command) const {
        std::vector<std::future<exec::CommandResult>> pending;
        for (int i = 1; i <= 8; ++i)
            pending.push_back(std::async(std::launch::async, [this, i, &command] {
                return executor->run(cluster.node(i), command(i));
            }));
        std::vector<exec::CommandResult> answers;
        for (auto& answer : pending) answers.push_back(answer.get());
        return answers;
    }
    // The same `sh -c` script on every host.
    std::vector<exec::CommandResult> on_every_host(
        const std::string& script, std::chrono::seconds timeout = std::chrono::minutes(2)) const {
        return on_every_host([&](int) { return exec::Command{{"sh", "-c", script}, {}, timeout}; });
    }

    std::unique_ptr<exec::SshExecutor> executor;
};

}  // namespace pdctl::testing
