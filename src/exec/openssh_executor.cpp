// The OpenSSH transport: the system `ssh` client, one ControlMaster per node, every command a mux
// session on its socket. The masters either stay for the next run (ControlPersist, in the per-user
// directory of openssh_masters.hpp) or belong to this run (a private directory, ended with it).
#include "pdctl/exec/openssh_executor.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <semaphore>
#include <stdexcept>

#include "child_process.hpp"
#include "master_processes.hpp"
#include "master_spawner.hpp"
#include "master_wait.hpp"
#include "openssh_command_line.hpp"
#include "openssh_mux.hpp"
#include "pdctl/exec/openssh_masters.hpp"
#include "pdctl/exec/openssh_messages.hpp"
#include "pdctl/exec/openssh_policy_config.hpp"
#include "pdctl/exec/openssh_view.hpp"
#include "pdctl/exec/ssh_target.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl/util/text_file.hpp"

namespace pdctl::exec {
namespace {

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

// A node that cannot be reached (the message is the whole error after the node's name).
struct Unreachable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace

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
        pid_t master = -1;  // this run's own master (options.persist 0), a child of this process
        // A master that stays (options.persist > 0): a daemon, known by its socket's answer.
        std::string lock_path;
        std::string dest_path;    // the node's description, for `pdctl ssh close`
        bool ready = false;       // answered (or was started) in this run
        bool reused = false;      // left by an earlier run and no session opened on it yet
        pid_t daemon = -1;        // its pid, from its answer to the alive check
        unsigned generation = 0;  // masters replaced so far: a failed session retires only its own
        std::string failure;      // a failed connect, kept: later commands fail at once
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
        detail::end_processes(masters);
        if (!control_dir.empty() && !persistent()) {
            std::error_code ignored;
            std::filesystem::remove_all(control_dir, ignored);
        }
    }

    bool persistent() const { return options.persist.count() > 0; }

    std::vector<std::string> base_args(const Node& node) const {
        std::vector<std::string> args = {ssh, "-F", policy_config};
        const auto options_args = detail::openssh_session_options(options, node.socket, persistent());
        args.insert(args.end(), options_args.begin(), options_args.end());
        return args;
    }

    std::shared_ptr<Node> node_for(const config::Node& node) {
        std::lock_guard lock(mutex);
        const std::string key = connection_key(node);
        if (auto found = nodes.find(key); found != nodes.end()) return found->second;
        // Checked before the node enters the map: a refused control directory must leave no empty
        // entry behind for the destructor to trip over.
        if (ssh.empty())
            throw Unreachable("no `" + options.ssh_program +
                              "` on PATH (ssh.transport openssh needs the OpenSSH client: apt-get "
                              "install openssh-client)");
        if (control_dir.empty()) open_control_dir();
        auto entry = std::make_shared<Node>(options.sessions_per_node);
        entry->name = node.name;
        entry->destination = openssh_destination_args(node, options.home);
        // A master that stays is named by its connection, so that the next run finds it.
        const std::string name =
            persistent() ? master_name(policy_text + '\0' + util::join_command(entry->destination))
                         : std::to_string(nodes.size() + 1);  // before it enters the map
        entry->socket = control_dir + "/" + name + ".sock";
        entry->error_log = control_dir + "/" + name + ".log";
        entry->lock_path = control_dir + "/" + name + ".lock";
        entry->dest_path = control_dir + "/" + name + ".dest";
        entry->where = {node.ssh.user, node.address, node.ssh.port, options.known_hosts};
        entry->described = node.name + " (" + address_of(node.address, node.ssh.port) + ")";
        nodes.emplace(key, entry);
        return entry;
    }

    // With `mutex` held, on the first node: the sockets' directory and the policy file every ssh reads.
    void open_control_dir() {
        policy_text = openssh_policy_config(options, options.home);
        if (persistent()) {
            const std::string dir = options.control_dir.empty() ? default_control_dir() : options.control_dir;
            prepare_control_dir(dir);
            // Named by its text: runs with other options (known_hosts, accept-new) each have their own.
            policy_config = dir + "/config-" + master_name(policy_text);
            detail::write_file_atomically(policy_config, policy_text);
            control_dir = dir;
            return;
        }
        control_dir = detail::make_private_socket_dir();
        policy_config = control_dir + "/ssh_config";
        detail::write_file_atomically(policy_config, policy_text);
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
        spec.deadline = util::SteadyClock::now() + kSshGTimeout;
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
        if (persistent()) return node.ready;
        if (node.master <= 0) return false;
        int status = 0;
        if (::waitpid(node.master, &status, WNOHANG) == 0) return true;
        node.master = -1;  // reaped: it ended (the connection broke, or sshd closed it)
        return false;
    }

    // With node.mutex held (and, for a master that stays, the node's lock file): a new master's pid,
    // or Unreachable. ssh links the socket into place once it is logged in and listening for clients;
    // until then it either exits (and says why) or the deadline passes. A master that stays is forked
    // into the background by ssh at that point, and the process started here exits 0.
    pid_t start_master(Node& node, util::SteadyClock::time_point deadline) {
        const detail::Held permit(handshakes);
        // The time spent waiting for a permit (the nodes before it logging in, on a busy machine
        // seconds at 64 nodes) is not this node's: its login gets the whole connect timeout from here.
        deadline = std::max(deadline, util::SteadyClock::now() + options.connect_timeout + kMasterExitWait);
        std::error_code ignored;
        std::filesystem::remove(node.socket, ignored);  // a master that died left it; it answers nobody
        std::ofstream(node.error_log, std::ios::trunc).close();
        auto argv = base_args(node);
        // -E: a master in the background writes to /dev/null, so its last words go to the file.
        if (persistent()) argv.insert(argv.end(), {"-E", node.error_log});
        argv.insert(argv.end(), {"-o", "ControlMaster=yes", "-N", "-T"});
        argv.insert(argv.end(), node.destination.begin(), node.destination.end());
        spdlog::debug("{}: starting the OpenSSH master: {}", node.described, util::join_command(argv));
        const pid_t pid = spawner.spawn(std::move(argv), environment, node.error_log);
        if (pid < 0) {
            node.failure = std::string("cannot start ssh: ") + std::strerror(errno);
            throw Unreachable(node.failure);
        }
        const auto waited = detail::wait_for_master(node.socket, pid, deadline);
        if (waited == detail::MasterWait::timed_out) {
            detail::end_processes({pid});
            describe_from_ssh_g(node);
            node.failure = fmt::format(
                "connect timed out after {} s (host down, port filtered, or a jump host that does not "
                "answer?)",
                std::chrono::duration_cast<std::chrono::seconds>(options.connect_timeout).count());
            throw Unreachable(node.failure);
        }
        if (!persistent() && waited == detail::MasterWait::ready) return pid;
        const int exit_code = detail::exit_status_within(pid, util::SteadyClock::now() + kMasterExitWait);
        if (persistent() && exit_code == 0)
            if (const pid_t daemon =
                    detail::master_pid(node.socket, util::SteadyClock::now() + kMasterExitWait);
                daemon > 0)
                return daemon;
        describe_from_ssh_g(node);
        node.failure = describe_openssh_failure(util::read_text_file(node.error_log), node.where);
        throw Unreachable(node.failure);
    }

    // With node.mutex held: a master that is up, or Unreachable. A master that ended since the last
    // command is started again once; a connect that failed stays failed for this run.
    void connect(Node& node) {
        if (persistent()) return connect_persistent(node);
        if (master_alive(node)) return;
        if (!node.failure.empty()) throw Unreachable(node.failure);
        node.master =
            start_master(node, util::SteadyClock::now() + options.connect_timeout + kMasterExitWait);
        ++opened;
    }

    // With node.mutex held, masters that stay: the one an earlier run left (it answers on its socket),
    // else a new one, started under the node's lock file so that a concurrent run waits and finds it.
    void connect_persistent(Node& node) {
        if (node.ready) return;
        if (!node.failure.empty()) throw Unreachable(node.failure);
        const auto deadline = util::SteadyClock::now() + options.connect_timeout + 2 * kMasterExitWait;
        detail::MasterLock lock(node.lock_path, deadline);
        node.daemon = detail::master_pid(node.socket, util::SteadyClock::now() + kMasterExitWait);
        node.reused = node.daemon > 0;
        if (node.reused) {
            ++reused;
        } else {
            detail::write_file_atomically(node.dest_path, node.described + "\n");
            node.daemon = start_master(node, deadline);
            ++opened;
        }
        node.ready = true;
    }

    // A master that opened no session: ended (if it is still the one this run found) so that the
    // next connect starts a new one. Under the lock file: a concurrent run may
    // have replaced it already, and its new master must stay.
    void retire(Node& node, unsigned generation) {
        if (node.generation != generation) return;  // another thread of this run did it
        ++node.generation;
        node.ready = false;
        node.reused = false;
        detail::MasterLock lock(node.lock_path,
                                util::SteadyClock::now() + options.connect_timeout + 2 * kMasterExitWait);
        if (detail::master_pid(node.socket, util::SteadyClock::now() + kMasterExitWait) == node.daemon)
            detail::terminate_master(node.socket, util::SteadyClock::now() + kMasterExitWait);
        std::error_code ignored;
        std::filesystem::remove(node.socket, ignored);
    }

    std::size_t close_masters() {
        std::vector<std::shared_ptr<Node>> used;
        {
            std::lock_guard lock(mutex);
            for (auto& [key, node] : nodes) used.push_back(node);
        }
        std::size_t closed = 0;
        for (auto& node : used) {
            std::lock_guard lock(node->mutex);
            const bool own = node->master > 0 || node->ready;
            if (own && detail::terminate_master(node->socket, util::SteadyClock::now() + kMasterExitWait))
                ++closed;
            node->ready = false;
            node->reused = false;
            ++node->generation;
        }
        return closed;
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
        const detail::Held session(node->sessions);
        detail::MuxOutcome outcome;
        // Twice at most, for masters that stay: one may have been killed since the last command, or,
        // left by an earlier run, be dead without knowing it (the node rebooted, a firewall dropped
        // the connection). Its session then never opens, and the command goes to a new master.
        for (int attempt = 0;; ++attempt) {
            bool on_unproven_master = false;
            unsigned generation = 0;
            {
                std::lock_guard lock(node->mutex);  // `described` changes under it when a connect fails
                try {
                    connect(*node);
                } catch (const std::exception& error) {
                    result.transport_error = node->described + ": " + error.what();
                    return result;
                }
                on_unproven_master = node->reused;
                generation = node->generation;
            }
            detail::MuxCommand mux;
            mux.socket = node->socket;
            mux.command = script;
            mux.stdin_data = stdin_data;
            mux.stdin_fd = stdin_fd;
            // The deadline starts once the node is connected: connecting has its own timeout.
            mux.deadline = util::SteadyClock::now() + timeout;
            if (on_unproven_master) mux.open_deadline = util::SteadyClock::now() + options.connect_timeout;
            mux.on_output = on_output;
            outcome = detail::run_over_master(mux);
            if (!persistent()) break;  // this run's own masters: master_alive() sees them end
            std::lock_guard lock(node->mutex);
            // Unopened, the command was never sent. A master that stays is retired when it is unproven
            // or no longer answers (killed since this run's last command); one that answers and
            // refused the session (sshd's MaxSessions) is healthy and keeps serving the others.
            const bool replace =
                attempt == 0 && outcome.end == detail::MuxOutcome::End::not_started &&
                (on_unproven_master ||
                 !detail::master_answers(node->socket, util::SteadyClock::now() + kMasterExitWait));
            if (!replace) {
                if (node->generation == generation) node->reused = false;  // it works: proven
                break;
            }
            spdlog::debug("{}: the ssh master opened no session ({}); replacing it", node->described,
                          outcome.error);
            try {
                retire(*node, generation);
            } catch (const std::exception& error) {
                result.transport_error = node->described + ": " + error.what();
                return result;
            }
        }
        result = std::move(outcome.result);
        using End = detail::MuxOutcome::End;
        if (outcome.end == End::exit_status || outcome.end == End::timed_out) return result;
        // No exit status: a command killed by a signal (sshd sends no status then, and OpenSSH passes
        // no signal on: 255, as `ssh` itself exits), or the master's connection broke.
        std::lock_guard lock(node->mutex);
        const bool master_up =
            master_alive(*node) &&
            detail::master_answers(node->socket, util::SteadyClock::now() + kMasterExitWait);
        if (master_up && outcome.end == End::no_exit_status) {
            result.exit_code = 255;
            return result;
        }
        describe_from_ssh_g(*node);
        result.exit_code = -1;
        if (master_up) {
            result.transport_error = node->described + ": " + outcome.error;
        } else {
            node->ready = false;  // a master that stays: the next command starts a new one
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
    std::string policy_text;    // openssh_policy_config
    std::string policy_config;  // in control_dir: the policy as a file, every ssh's -F
    std::atomic<std::size_t> reused{0};
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

CommandResult OpenSshExecutor::run_script_with_stdin_file(const config::Node& node, const std::string& script,
                                                          int stdin_fd, std::chrono::milliseconds timeout) {
    return impl_->run_client(node, script, "", stdin_fd, timeout);
}

std::size_t OpenSshExecutor::connections_opened() const {
    return impl_->opened.load();
}

std::size_t OpenSshExecutor::connections_reused() const {
    return impl_->reused.load();
}

std::size_t OpenSshExecutor::close_masters() {
    return impl_->close_masters();
}

std::string OpenSshExecutor::control_dir() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->control_dir;
}

}  // namespace pdctl::exec
