// The SSH executor: one connection per node for the whole run, opened on first use, shared by every
// command for that node (serialised on the node's mutex), bounded concurrent handshakes.
#include "pdctl/exec/ssh_executor.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <semaphore>

#include "pdctl/exec/ssh_config.hpp"
#include "pdctl/exec/ssh_target.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "ssh_channel_io.hpp"
#include "ssh_session.hpp"
#include "ssh_sftp.hpp"

namespace pdctl::exec {
namespace {

using detail::SshError;
using detail::SshSession;

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? std::string(value) : fallback;
}

// What a command is called in diagnostics: the name pdctl's scripts give themselves (`sh -c SCRIPT
// pdctl-inspect ...`), otherwise the program. Never its arguments, which may hold secrets.
std::string command_label(const std::vector<std::string>& argv) {
    if (argv.size() > 3 && argv[0] == "sh" && argv[1] == "-c") return argv[3];
    return argv.empty() ? std::string("(nothing)") : argv[0];
}

long long ms_between(util::SteadyClock::time_point from, util::SteadyClock::time_point to) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

void init_libssh2() {
    static std::once_flag once;
    std::call_once(once, [] { libssh2_init(0); });
}

}  // namespace

SshOptions SshOptions::from_environment() {
    SshOptions options;
    options.home = local_home_directory();
    const std::string ssh_dir = options.home + "/.ssh";
    options.known_hosts = env_or("PDCTL_KNOWN_HOSTS", ssh_dir + "/known_hosts");
    options.ssh_config = env_or("PDCTL_SSH_CONFIG", ssh_dir + "/config");
    options.agent_socket = env_or("SSH_AUTH_SOCK", "");
    options.default_identities = {ssh_dir + "/id_ed25519", ssh_dir + "/id_ecdsa"};
    options.passphrase = env_or("PDCTL_SSH_PASSPHRASE", "");
    const std::string handshakes = env_or("PDCTL_SSH_MAX_HANDSHAKES", "");
    if (!handshakes.empty()) {
        const int value = std::atoi(handshakes.c_str());
        if (value > 0) options.max_parallel_handshakes = value;
    }
    return options;
}

struct SshExecutor::Impl {
    // One node's connection. `failure` keeps a failed connect so later commands fail at once instead
    // of waiting out the connect timeout again.
    struct Node {
        std::mutex mutex;
        SshTarget target;
        std::unique_ptr<SshSession> session;
        std::string failure;
    };

    explicit Impl(SshOptions opts)
        : options(std::move(opts)), handshakes(std::clamp(options.max_parallel_handshakes, 1, 1024)) {
        init_libssh2();
        if (options.home.empty()) options.home = local_home_directory();
        local_user = local_user_name();
        if (!options.ssh_config.empty()) {
            ssh_config = SshConfig::load(options.ssh_config);
            for (const auto& warning : ssh_config.warnings()) spdlog::warn("{}", warning);
        }
    }

    std::shared_ptr<Node> node_for(const config::Node& node) {
        std::lock_guard lock(mutex);
        auto& entry = nodes[connection_key(node)];
        if (!entry) {
            entry = std::make_shared<Node>();
            entry->target = resolve_target(node, ssh_config, options.home, local_user);
        }
        return entry;
    }

    // With `node.mutex` held: a usable session, or SshError.
    SshSession& session_for(Node& node) {
        if (node.session && !node.session->broken()) return *node.session;
        node.session.reset();
        if (!node.failure.empty()) throw SshError(node.failure);
        if (!node.target.unsupported.empty()) {
            node.failure = node.target.unsupported;
            throw SshError(node.failure);
        }
        struct Permit {  // one of the bounded concurrent handshakes
            explicit Permit(std::counting_semaphore<1024>& s) : semaphore(s) { semaphore.acquire(); }
            ~Permit() { semaphore.release(); }
            std::counting_semaphore<1024>& semaphore;
        } permit(handshakes);
        try {
            node.session = std::make_unique<SshSession>(node.target, options,
                                                        util::SteadyClock::now() + options.connect_timeout);
        } catch (const SshError& error) {
            node.failure = error.what();
            throw;
        }
        ++opened;
        return *node.session;
    }

    // Runs `action(session)` on the node's session; a reused session that turns out dead before the
    // action started anything is replaced once by a fresh connection.
    template <typename Action>
    auto with_session(Node& node, Action action) {
        std::lock_guard lock(node.mutex);
        const bool reused = node.session && !node.session->broken();
        SshSession& session = session_for(node);
        session.keepalive();
        try {
            return action(session);
        } catch (const SshError& error) {
            session.mark_broken();
            if (!reused || error.command_started()) throw;
            spdlog::debug("{}: connection lost ({}); reconnecting", node.target.describe(), error.what());
            return action(session_for(node));
        }
    }

    SshOptions options;
    SshConfig ssh_config;
    std::string local_user;
    std::counting_semaphore<1024> handshakes;
    std::atomic<std::size_t> opened{0};
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<Node>> nodes;
};

SshExecutor::SshExecutor(SshOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

SshExecutor::~SshExecutor() {
    for (auto& [key, node] : impl_->nodes) {
        std::lock_guard lock(node->mutex);
        node->session.reset();
    }
}

CommandResult SshExecutor::run(const config::Node& node, const Command& command) {
    CommandResult result;
    std::shared_ptr<Impl::Node> state;
    try {
        state = impl_->node_for(node);
        const std::string script = util::join_command(command.argv);
        const auto asked = util::SteadyClock::now();
        return impl_->with_session(*state, [&](SshSession& session) {
            // The deadline starts once the node is connected: connecting has its own timeout.
            const auto began = util::SteadyClock::now();
            std::string stalled_at;
            auto ran = detail::run_on_session(session, script, command.stdin_data, began + command.timeout,
                                              &command.on_output, &stalled_at);
            // Where a slow command's time went (the node's queue and connecting, or the command), for -vv.
            spdlog::debug("{}: {} {} after {} ms waiting, {} ms running", state->target.describe(),
                          command_label(command.argv),
                          ran.timed_out ? "timed out while " + stalled_at : std::string("ended"),
                          ms_between(asked, began), ms_between(began, util::SteadyClock::now()));
            return ran;
        });
    } catch (const SshError& error) {
        result.transport_error = (state ? state->target.describe() : node.name) + ": " + error.what();
    } catch (const std::exception& error) {
        result.transport_error =
            (state ? state->target.describe() : node.name) + ": internal error: " + error.what();
    }
    return result;
}

TransferResult SshExecutor::upload(const config::Node& node, const std::string& local_path,
                                   const std::string& remote_path, int mode,
                                   std::chrono::milliseconds timeout) {
    TransferResult result;
    std::shared_ptr<Impl::Node> state;
    try {
        state = impl_->node_for(node);
        result = impl_->with_session(*state, [&](SshSession& session) {
            return detail::sftp_upload(session, local_path, remote_path, mode,
                                       util::SteadyClock::now() + timeout);
        });
        if (!result.ok()) result.error = state->target.describe() + ": " + result.error;
    } catch (const SshError& error) {
        result.error = (state ? state->target.describe() : node.name) + ": " + error.what();
        result.transport_failed = true;
    } catch (const std::exception& error) {
        result.error = (state ? state->target.describe() : node.name) + ": internal error: " + error.what();
    }
    return result;
}

std::size_t SshExecutor::connections_opened() const {
    return impl_->opened.load();
}

}  // namespace pdctl::exec
