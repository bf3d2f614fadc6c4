// The OpenSSH transport: the system `ssh` client, one ControlMaster per node (started on first use,
// ended with the executor), every command a mux session on its socket.
#include "pdctl/exec/openssh_executor.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <queue>
#include <semaphore>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "child_process.hpp"
#include "embedded/exec_scripts.hpp"
#include "master_spawner.hpp"
#include "master_wait.hpp"
#include "openssh_mux.hpp"
#include "pdctl/exec/openssh_messages.hpp"
#include "pdctl/exec/openssh_policy_config.hpp"
#include "pdctl/exec/openssh_view.hpp"
#include "pdctl/exec/ssh_target.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl/util/text_file.hpp"

namespace pdctl::exec {
namespace {

using Clock = std::chrono::steady_clock;
// "host:port", "[v6]:port": how the libssh2 path names an address too.
std::string address_of(const std::string& host, int port) {
    SshTarget target;
    target.host = host;
    target.port = port;
    return target.address();
}

// Spelt out, not chrono literals: cppcheck 2.10 cannot parse `10s`.
constexpr std::chrono::seconds kMasterExitWait{2};
constexpr std::chrono::seconds kSshGTimeout{10};
constexpr std::chrono::milliseconds kPollInterval{2};

// A node that cannot be reached (the message is the whole error after the node's name).
struct Unreachable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The private directory of the control sockets: 0700, under /tmp (a socket path may not exceed 107
// bytes, and $TMPDIR can be long).
std::string make_control_dir() {
    std::string pattern = "/tmp/pdctl-ssh-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error(std::string("cannot create a directory for the SSH control sockets: ") +
                                 std::strerror(errno));
    return pattern;
}

// Ends the masters: SIGTERM to all (ssh closes its channels and disconnects), then one shared wait,
// SIGKILL for any still there after 2 s. All at once: one after the other, 64 nodes would cost 64
// round trips at the end of every run.
void end_processes(const std::vector<pid_t>& pids) {
    for (const pid_t pid : pids) ::kill(pid, SIGTERM);
    const auto deadline = Clock::now() + kMasterExitWait;
    std::vector<pid_t> left = pids;
    while (!left.empty()) {
        std::erase_if(left, [](pid_t pid) {
            int status = 0;
            return ::waitpid(pid, &status, WNOHANG) != 0;  // ended (or not ours to wait for)
        });
        if (left.empty()) return;
        if (Clock::now() >= deadline) {
            for (const pid_t pid : left) {
                ::kill(pid, SIGKILL);
                int status = 0;
                ::waitpid(pid, &status, 0);
            }
            return;
        }
        std::this_thread::sleep_for(kPollInterval);
    }
}

}  // namespace

std::vector<std::string> openssh_destination_args(const config::Node& node, const std::string& home) {
    std::vector<std::string> args;
    // Only what pdctl.yaml says: the rest is the ssh config's, as the operator's own `ssh` would see it.
    if (node.ssh.user_set()) args.insert(args.end(), {"-l", node.ssh.user});
    if (node.ssh.port_set()) args.insert(args.end(), {"-p", std::to_string(node.ssh.port)});
    if (!node.ssh.identity.empty()) args.insert(args.end(), {"-i", expand_home(node.ssh.identity, home)});
    args.insert(args.end(), {"--", node.address});
    return args;
}

struct OpenSshExecutor::Impl {
    struct Node {
        std::mutex mutex;  // connecting and reaping the master
        std::string name;
        std::vector<std::string> destination;  // openssh_destination_args
        std::string socket;
        std::string error_log;        // the master's stderr
        OpenSshFailureContext where;  // from `ssh -G`, for messages
        std::string described;        // "n5 (10.77.0.5:2022 via root@[10.77.0.250])"
        bool described_by_ssh_g = false;
        pid_t master = -1;
        std::string failure;  // a failed connect, kept: later commands fail at once
        std::counting_semaphore<64> sessions;
        explicit Node(int sessions_per_node) : sessions(std::clamp(sessions_per_node, 1, 64)) {}
    };

    explicit Impl(OpenSshOptions opts)
        : options(std::move(opts)),
          ssh(detail::find_program(options.ssh_program)),
          environment(detail::environment_copy()),
          handshakes(std::clamp(options.max_parallel_handshakes, 1, 1024)) {
        if (options.home.empty()) options.home = std::getenv("HOME") ? std::getenv("HOME") : "/";
    }

    ~Impl() {
        std::vector<pid_t> masters;
        for (auto& [key, node] : nodes) {
            std::lock_guard lock(node->mutex);
            if (node->master > 0) masters.push_back(node->master);
            node->master = -1;
        }
        end_processes(masters);
        if (!control_dir.empty()) {
            std::error_code ignored;
            std::filesystem::remove_all(control_dir, ignored);
        }
    }

    std::vector<std::string> base_args(const Node& node) const {
        std::vector<std::string> args = {ssh, "-F", policy_config};
        const auto seconds = [](auto duration) {
            return std::to_string(
                std::max<long long>(1, std::chrono::duration_cast<std::chrono::seconds>(duration).count()));
        };
        for (const auto& option : {
                 std::string("BatchMode=yes"),  // never a prompt: a password or passphrase question fails
                 std::string("StrictHostKeyChecking=") +
                     (options.accept_new_host_keys ? "accept-new" : "yes"),
                 "UserKnownHostsFile=" + options.known_hosts,
                 std::string("UpdateHostKeys=no"),  // the libssh2 path never rewrites known_hosts either
                 std::string("LogLevel=ERROR"),
                 "ConnectTimeout=" + seconds(options.connect_timeout),
                 "ServerAliveInterval=" + std::to_string(options.keepalive_interval.count()),
                 std::string("ServerAliveCountMax=3"),
                 "ControlPath=" + node.socket,
                 std::string("ControlPersist=no"),
             })
            args.insert(args.end(), {"-o", option});
        return args;
    }

    std::shared_ptr<Node> node_for(const config::Node& node) {
        std::lock_guard lock(mutex);
        auto& entry = nodes[connection_key(node)];
        if (!entry) {
            if (ssh.empty())
                throw Unreachable("no `" + options.ssh_program +
                                  "` on PATH (ssh.transport openssh needs the OpenSSH client: apt-get "
                                  "install openssh-client)");
            if (control_dir.empty()) {
                control_dir = make_control_dir();
                policy_config = control_dir + "/ssh_config";
                std::ofstream out(policy_config, std::ios::trunc);
                out << openssh_policy_config(options, options.home);
                if (!out.flush())
                    throw std::runtime_error("cannot write " + policy_config + ": " + std::strerror(errno));
            }
            entry = std::make_shared<Node>(options.sessions_per_node);
            const std::string index = std::to_string(nodes.size());
            entry->name = node.name;
            entry->destination = openssh_destination_args(node, options.home);
            entry->socket = control_dir + "/" + index + ".sock";
            entry->error_log = control_dir + "/" + index + ".log";
            entry->where = {node.ssh.user, node.address, node.ssh.port, options.known_hosts};
            entry->described = node.name + " (" + address_of(node.address, node.ssh.port) + ")";
        }
        return entry;
    }

    // What ssh connected to, for the messages of a failure: `ssh -G` (no network; evaluates the ssh
    // config). Only then: one process less per node on the way that works.
    void describe_from_ssh_g(Node& node) {
        if (node.described_by_ssh_g) return;
        node.described_by_ssh_g = true;
        detail::ChildSpec spec;
        spec.argv = {ssh, "-F", policy_config, "-G"};
        spec.argv.insert(spec.argv.end(), node.destination.begin(), node.destination.end());
        spec.environment = &environment;
        spec.deadline = Clock::now() + kSshGTimeout;
        const auto answer = detail::run_child(spec);
        if (answer.exit_code != 0) return;
        const auto view = parse_ssh_g(answer.out);
        node.where.user = view.user;
        node.where.host = view.hostname;
        node.where.port = view.port;
        node.described = node.name + " (" + address_of(view.hostname, view.port) +
                         (view.proxy_jump.empty() ? "" : " via " + view.proxy_jump) + ")";
    }

    bool master_alive(Node& node) {
        if (node.master <= 0) return false;
        int status = 0;
        if (::waitpid(node.master, &status, WNOHANG) == 0) return true;
        node.master = -1;  // reaped: it ended (the connection broke, or sshd closed it)
        return false;
    }

    // With node.mutex held: a master that is up, or Unreachable. A master that ended since the last
    // command is started again once; a connect that failed stays failed for this run.
    void connect(Node& node) {
        if (master_alive(node)) return;
        if (!node.failure.empty()) throw Unreachable(node.failure);
        struct Permit {
            explicit Permit(std::counting_semaphore<1024>& s) : semaphore(s) { semaphore.acquire(); }
            ~Permit() { semaphore.release(); }
            std::counting_semaphore<1024>& semaphore;
        } permit(handshakes);
        std::error_code ignored;
        std::filesystem::remove(node.socket, ignored);
        std::ofstream(node.error_log, std::ios::trunc).close();
        auto argv = base_args(node);
        argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-N", "-T"});
        argv.insert(argv.end(), node.destination.begin(), node.destination.end());
        spdlog::debug("{}: starting the OpenSSH master: {}", node.described, util::join_command(argv));
        const pid_t pid = spawner.spawn(std::move(argv), environment, node.error_log);
        if (pid < 0) {
            node.failure = std::string("cannot start ssh: ") + std::strerror(errno);
            throw Unreachable(node.failure);
        }
        // ssh links the socket into place once it is logged in and listening for clients; until then
        // it either exits (and says why on stderr) or the connect deadline passes.
        const auto deadline = Clock::now() + options.connect_timeout + kMasterExitWait;
        switch (detail::wait_for_master(node.socket, pid, deadline)) {
            case detail::MasterWait::ready:
                node.master = pid;
                ++opened;
                return;
            case detail::MasterWait::exited: {
                int status = 0;
                ::waitpid(pid, &status, 0);
                describe_from_ssh_g(node);
                node.failure = describe_openssh_failure(util::read_text_file(node.error_log), node.where);
                throw Unreachable(node.failure);
            }
            case detail::MasterWait::timed_out:
                break;
        }
        end_processes({pid});
        describe_from_ssh_g(node);
        node.failure = fmt::format(
            "connect timed out after {} s (host down, port filtered, or a jump host that does not answer?)",
            std::chrono::duration_cast<std::chrono::seconds>(options.connect_timeout).count());
        throw Unreachable(node.failure);
    }

    // One multiplexed client: connects the node first if needed. Never throws.
    CommandResult run_client(const config::Node& config_node, const std::string& script,
                             const std::string& stdin_data, int stdin_fd, std::chrono::milliseconds timeout,
                             const OutputSink* on_output = nullptr) {
        CommandResult result;
        std::shared_ptr<Node> node;
        try {
            node = node_for(config_node);
        } catch (const std::exception& error) {
            result.transport_error = config_node.name + ": " + error.what();
            return result;
        }
        {
            std::lock_guard lock(node->mutex);  // `described` changes under it when a connect fails
            try {
                connect(*node);
            } catch (const std::exception& error) {
                result.transport_error = node->described + ": " + error.what();
                return result;
            }
        }
        struct Session {
            explicit Session(std::counting_semaphore<64>& s) : semaphore(s) { semaphore.acquire(); }
            ~Session() { semaphore.release(); }
            std::counting_semaphore<64>& semaphore;
        } session(node->sessions);
        detail::MuxCommand mux;
        mux.socket = node->socket;
        mux.command = script;
        mux.stdin_data = stdin_data;
        mux.stdin_fd = stdin_fd;
        // The deadline starts once the node is connected: connecting has its own timeout.
        mux.deadline = Clock::now() + timeout;
        mux.on_output = on_output;
        auto outcome = detail::run_over_master(mux);
        result = std::move(outcome.result);
        using End = detail::MuxOutcome::End;
        if (outcome.end == End::exit_status || outcome.end == End::timed_out) return result;
        // No exit status: a command killed by a signal (sshd sends no status then, and OpenSSH passes
        // no signal on: 255, as `ssh` itself exits), or the master's connection broke.
        std::lock_guard lock(node->mutex);
        const bool master_up =
            master_alive(*node) && detail::master_answers(node->socket, Clock::now() + kMasterExitWait);
        if (master_up && outcome.end == End::no_exit_status) {
            result.exit_code = 255;
            return result;
        }
        describe_from_ssh_g(*node);
        result.exit_code = -1;
        if (master_up) {
            result.transport_error = node->described + ": " + outcome.error;
        } else {
            const std::string said = util::read_text_file(node->error_log);
            result.transport_error = node->described + ": connection lost: " +
                                     (said.empty() ? "the ssh master process ended without a word (killed?)"
                                                   : describe_openssh_failure(said, node->where));
        }
        return result;
    }

    OpenSshOptions options;
    std::string ssh;  // absolute path, or empty: not installed
    std::vector<std::string> environment;
    std::counting_semaphore<1024> handshakes;
    std::atomic<std::size_t> opened{0};
    std::mutex mutex;
    std::string control_dir;
    std::string policy_config;  // in control_dir: openssh_policy_config, every ssh's -F
    std::map<std::string, std::shared_ptr<Node>> nodes;
    detail::MasterSpawner spawner;
};

OpenSshExecutor::OpenSshExecutor(OpenSshOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

OpenSshExecutor::~OpenSshExecutor() = default;

CommandResult OpenSshExecutor::run(const config::Node& node, const Command& command) {
    return impl_->run_client(node, util::join_command(command.argv), command.stdin_data, -1, command.timeout,
                             &command.on_output);
}

TransferResult OpenSshExecutor::upload(const config::Node& node, const std::string& local_path,
                                       const std::string& remote_path, int mode,
                                       std::chrono::milliseconds timeout) {
    TransferResult result;
    const int fd = ::open(local_path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) {
        result.error = node.name + ": cannot read " + local_path + ": " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return result;
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::string script =
        util::join_command({"sh", "-c", std::string(scripts::upload), "pdctl-upload", remote_path,
                            fmt::format("{:o}", mode), std::to_string(size)});
    const auto answer = impl_->run_client(node, script, "", fd, timeout);
    ::close(fd);
    if (!answer.transport_error.empty()) {
        result.error = answer.transport_error;
        result.transport_failed = true;
    } else if (answer.timed_out) {
        result.error = fmt::format("{}: uploading {} timed out after {} s", node.name, remote_path,
                                   std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
    } else if (answer.exit_code != 0) {
        const auto err = answer.err.substr(0, answer.err.find('\n'));
        result.error = fmt::format("{}: cannot write {}: {}", node.name, remote_path,
                                   err.empty() ? fmt::format("exit {}", answer.exit_code) : err);
    } else {
        result.bytes = size;
    }
    return result;
}

std::size_t OpenSshExecutor::connections_opened() const {
    return impl_->opened.load();
}

std::string OpenSshExecutor::control_dir() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->control_dir;
}

}  // namespace pdctl::exec
