#include "pdctl/exec/ssh_transports.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/exec/known_hosts.hpp"
#include "pdctl/exec/openssh_masters.hpp"
#include "pdctl/exec/ssh_config.hpp"
#include "pdctl/exec/ssh_target.hpp"
#include "pdctl/util/strings.hpp"
#include "pdctl/util/text_file.hpp"

namespace pdctl::exec {
namespace {

bool is_file(const std::string& path) {
    std::error_code ignored;
    return std::filesystem::is_regular_file(path, ignored);
}

// GSSAPI matters only where there is a ticket to log in with: Debian's /etc/ssh/ssh_config turns
// GSSAPIAuthentication on for every host, and without a ticket OpenSSH skips it too.
bool has_kerberos_ticket() {
    if (const char* cache = std::getenv("KRB5CCNAME"); cache && *cache) return true;
    return is_file("/tmp/krb5cc_" + std::to_string(::geteuid()));
}

}  // namespace

OpenSshOptions openssh_options_like(const SshOptions& libssh2) {
    OpenSshOptions options;
    options.known_hosts = libssh2.known_hosts;
    options.accept_new_host_keys = libssh2.accept_new_host_keys;
    options.connect_timeout = libssh2.connect_timeout;
    options.keepalive_interval = libssh2.keepalive_interval;
    options.max_parallel_handshakes = libssh2.max_parallel_handshakes;
    options.home = libssh2.home;
    // The operator's own ~/.ssh/config is OpenSSH's default anyway, and without -F OpenSSH also reads
    // /etc/ssh/ssh_config, as their `ssh` does. Another file (PDCTL_SSH_CONFIG, tests) is passed on.
    const std::string home = libssh2.home.empty() ? local_home_directory() : libssh2.home;
    if (!libssh2.ssh_config.empty() && libssh2.ssh_config != home + "/.ssh/config")
        options.ssh_config = libssh2.ssh_config;
    options.persist = std::chrono::seconds(60);
    if (const char* persist = std::getenv("PDCTL_SSH_PERSIST"); persist && *persist)
        options.persist = parse_ssh_persist(persist);
    options.control_dir = control_dir_from_environment();
    return options;
}

TransportFacts gather_transport_facts(const config::Node& node, const SshOptions& libssh2,
                                      const OpenSshOptions& openssh, const OpenSshConfigReading* reading) {
    TransportFacts facts;
    facts.setting = node.ssh.transport;
    if (facts.setting != config::SshTransport::Auto) return facts;
    const std::string home = libssh2.home.empty() ? local_home_directory() : libssh2.home;

    const auto ssh_config = libssh2.ssh_config.empty() ? SshConfig() : SshConfig::load(libssh2.ssh_config);
    facts.libssh2 = resolve_target(node, ssh_config, home, local_user_name());
    facts.match_exec = ssh_config.has_match_exec();
    facts.ssh_client = detail::find_program(openssh.ssh_program);
    if (facts.ssh_client.empty()) return facts;

    const auto destination = openssh_destination_args(node, home);
    // The files read in-process where they say nothing that needs OpenSSH's own evaluation: no
    // `ssh -G` process for this node. Otherwise (or without a reading) OpenSSH is asked.
    std::string why_ssh_g;
    const auto parsed = parse_destination_args(destination);
    const auto view =
        reading && parsed ? reading->view_for(*parsed, local_user_name(), is_file, &why_ssh_g) : std::nullopt;
    if (view) {
        facts.openssh = *view;
        facts.read_in_process = true;
    } else {
        if (reading)
            spdlog::debug("{}: asking ssh -G: {}", node.name,
                          why_ssh_g.empty() ? "its command line" : why_ssh_g);
        detail::ChildSpec spec;
        spec.argv = {facts.ssh_client};
        if (!openssh.ssh_config.empty()) spec.argv.insert(spec.argv.end(), {"-F", openssh.ssh_config});
        spec.argv.push_back("-G");
        spec.argv.insert(spec.argv.end(), destination.begin(), destination.end());
        const auto environment = detail::environment_copy();
        spec.environment = &environment;
        spec.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        const auto answer = detail::run_child(spec);
        if (!answer.ok()) {
            facts.ssh_g_error = answer.timed_out ? "no answer in 10 s" : failure_reason(answer);
            return facts;
        }
        facts.openssh = parse_ssh_g(answer.out);
    }

    for (const auto& listed : facts.openssh.identity_files) {
        const std::string path = expand_home(listed, home);
        if (!is_file(path)) continue;
        facts.identities.push_back({path, inspect_key_file(path).kind});
        // OpenSSH loads KEY-cert.pub beside a key by itself.
        if (is_file(path + "-cert.pub")) facts.certificates.push_back(path + "-cert.pub");
    }
    for (const auto& listed : facts.openssh.certificate_files)
        if (const std::string path = expand_home(listed, home); is_file(path))
            facts.certificates.insert(facts.certificates.begin(), path);

    const auto trust = known_hosts_trust(util::read_text_file(libssh2.known_hosts), facts.openssh.hostname,
                                         facts.openssh.port);
    facts.host_ca_only = trust.certificate_authority && !trust.key;
    facts.kerberos_ticket = has_kerberos_ticket();
    return facts;
}

SshTransports::SshTransports(SshOptions libssh2, OpenSshOptions openssh)
    : libssh2_options_(std::move(libssh2)), openssh_options_(std::move(openssh)) {}

SshTransports::~SshTransports() = default;

const OpenSshConfigReading& SshTransports::config_reading() {
    // Once per run, for every node: the files do not change while pdctl reads them.
    std::call_once(reading_once_,
                   [this] { reading_ = load_openssh_config_reading(openssh_options_.ssh_config); });
    return reading_;
}

TransportChoice SshTransports::choice_for(const config::Node& node) {
    {
        std::lock_guard lock(mutex_);
        if (auto found = choices_.find(node.name); found != choices_.end()) return found->second;
    }
    // Gathered outside the lock: the `ssh -G` still needed for some nodes run in parallel.
    const auto* reading = node.ssh.transport == config::SshTransport::Auto ? &config_reading() : nullptr;
    const auto choice =
        choose_transport(gather_transport_facts(node, libssh2_options_, openssh_options_, reading));
    std::lock_guard lock(mutex_);
    const auto [entry, added] = choices_.emplace(node.name, choice);
    if (added)
        spdlog::info("{}: SSH transport {}: {}", node.name, to_string(choice.transport), choice.reason);
    return entry->second;
}

Executor& SshTransports::executor_for(const config::Node& node) {
    const auto choice = choice_for(node);
    std::lock_guard lock(mutex_);
    if (choice.transport == Transport::OpenSsh) {
        if (!openssh_) openssh_ = std::make_unique<OpenSshExecutor>(openssh_options_);
        return *openssh_;
    }
    if (!libssh2_) libssh2_ = std::make_unique<SshExecutor>(libssh2_options_);
    return *libssh2_;
}

std::size_t SshTransports::close_masters() {
    std::lock_guard lock(mutex_);
    return openssh_ ? openssh_->close_masters() : 0;
}

CommandResult SshTransports::run(const config::Node& node, const Command& command) {
    return executor_for(node).run(node, command);
}

TransferResult SshTransports::upload(const config::Node& node, const std::string& local_path,
                                     const std::string& remote_path, int mode,
                                     std::chrono::milliseconds timeout) {
    return executor_for(node).upload(node, local_path, remote_path, mode, timeout);
}

}  // namespace pdctl::exec
