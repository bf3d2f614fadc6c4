// Public-key authentication: the node's explicit keys (pdctl.yaml `ssh.identity`, else the ssh config's
// IdentityFile), then every key in ssh-agent, then the default keys when no key was named. Password and
// keyboard-interactive logins are not attempted: pdctl never prompts.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <memory>
#include <vector>

#include "pdctl/exec/ssh_key_file.hpp"
#include "pdctl/util/strings.hpp"
#include "ssh_session.hpp"

namespace pdctl::exec::detail {
namespace {

std::string kind_name(const KeyFileInfo& info) {
    return info.type_name.empty() ? "unknown type" : info.type_name;
}

bool file_exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

class Authenticator {
  public:
    Authenticator(SshSession& session, const SshOptions& options, util::SteadyClock::time_point deadline)
        : session_(session), options_(options), deadline_(deadline), user_(session.target().user) {}

    void run() {
        if (!offers_publickey()) return;  // already authenticated ("none" accepted)
        const auto& explicit_keys = session_.target().identities;
        for (const auto& path : explicit_keys)
            if (try_key(path, true)) return;
        if (!options_.agent_socket.empty() && try_agent()) return;
        if (explicit_keys.empty()) {
            for (const auto& path : options_.default_identities)
                if (file_exists(path) && try_key(path, false)) return;
        }
        fail();
    }

  private:
    // Asks which methods the server takes for the user; false if "none" already logged us in.
    bool offers_publickey() {
        char* methods = nullptr;
        const auto rc = session_.until_done(deadline_, [&] {
            methods =
                libssh2_userauth_list(session_.raw(), user_.c_str(), static_cast<unsigned>(user_.size()));
            if (methods) return 0;
            if (libssh2_userauth_authenticated(session_.raw())) return 1;
            return libssh2_session_last_errno(session_.raw());
        });
        if (!rc) throw SshError("authentication timed out");
        if (*rc == 1) return false;
        if (*rc != 0) throw SshError("cannot start authentication: " + session_.last_error());
        const std::string list = methods;
        if (list.find("publickey") == std::string::npos) {
            throw SshError("the server accepts only `" + list + "` for user " + user_ +
                           "; pdctl logs in with keys (publickey) only");
        }
        return true;
    }

    bool try_key(const std::string& path, bool named) {
        const KeyFileInfo info = inspect_key_file(path);
        if (!info.error.empty()) {
            notes_.push_back("key " + path + ": " + info.error);
            return false;
        }
        if (info.kind == KeyKind::Rsa) rsa_key_ = path;
        if (info.encrypted && options_.passphrase.empty()) {
            notes_.push_back("key " + path +
                             " is encrypted: set PDCTL_SSH_PASSPHRASE or load it into ssh-agent");
            return false;
        }
        const char* passphrase = info.encrypted ? options_.passphrase.c_str() : nullptr;
        const auto rc = session_.until_done(deadline_, [&] {
            return libssh2_userauth_publickey_fromfile_ex(session_.raw(), user_.c_str(),
                                                          static_cast<unsigned>(user_.size()), nullptr,
                                                          path.c_str(), passphrase);
        });
        if (!rc) throw SshError("authentication timed out");
        if (*rc == 0) {
            spdlog::debug("{}: logged in as {} with key {}", session_.target().describe(), user_, path);
            return true;
        }
        check_connection(*rc);
        if (*rc == LIBSSH2_ERROR_FILE) {
            notes_.push_back("key " + path + " (" + kind_name(info) + ") cannot be loaded" +
                             (info.encrypted ? " (wrong PDCTL_SSH_PASSPHRASE?)" : "") + ": " +
                             session_.last_error());
        } else {
            notes_.push_back("key " + path + " (" + kind_name(info) + ") was refused" +
                             (named ? "" : " (default key)"));
        }
        return false;
    }

    bool try_agent() {
        struct AgentDeleter {
            void operator()(LIBSSH2_AGENT* agent) const {
                libssh2_agent_disconnect(agent);
                libssh2_agent_free(agent);
            }
        };
        std::unique_ptr<LIBSSH2_AGENT, AgentDeleter> agent(libssh2_agent_init(session_.raw()));
        if (!agent) return false;
        libssh2_agent_set_identity_path(agent.get(), options_.agent_socket.c_str());
        if (libssh2_agent_connect(agent.get()) != 0) {
            notes_.push_back("ssh-agent at " + options_.agent_socket + " is not reachable");
            return false;
        }
        if (libssh2_agent_list_identities(agent.get()) != 0) {
            notes_.push_back("ssh-agent did not list its keys");
            return false;
        }
        int refused = 0;
        libssh2_agent_publickey* previous = nullptr;
        libssh2_agent_publickey* identity = nullptr;
        while (libssh2_agent_get_identity(agent.get(), &identity, previous) == 0) {
            previous = identity;
            const auto rc = session_.until_done(
                deadline_, [&] { return libssh2_agent_userauth(agent.get(), user_.c_str(), identity); });
            if (!rc) throw SshError("authentication timed out");
            if (*rc == 0) {
                spdlog::debug("{}: logged in as {} with an ssh-agent key", session_.target().describe(),
                              user_);
                return true;
            }
            check_connection(*rc);
            ++refused;
            // The blob starts with the key type as an SSH string: 4 length bytes, then "ssh-rsa".
            if (identity->blob_len > 11 &&
                std::string_view(reinterpret_cast<const char*>(identity->blob) + 4, 7) == "ssh-rsa")
                rsa_key_ = rsa_key_.empty() ? "an ssh-agent key" : rsa_key_;
        }
        notes_.push_back(refused == 0 ? "ssh-agent holds no keys"
                                      : "ssh-agent: " + std::to_string(refused) + " key(s) refused");
        return false;
    }

    // Socket and protocol errors end the attempt at once: the server is gone.
    void check_connection(int rc) {
        if (rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV ||
            rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_TIMEOUT ||
            rc == LIBSSH2_ERROR_TIMEOUT) {
            throw SshError("connection lost during authentication: " + session_.last_error());
        }
    }

    [[noreturn]] void fail() {
        std::string message = "authentication as " + user_ + " failed: ";
        if (notes_.empty()) {
            message +=
                "no key to offer (set ssh.identity in pdctl.yaml or IdentityFile in ~/.ssh/config, load a "
                "key into ssh-agent, or create ~/.ssh/id_ed25519)";
        }
        message += util::join(notes_, "; ");
        if (!rsa_key_.empty()) message += ". " + rsa_key_explanation(rsa_key_);
        throw SshError(message);
    }

    SshSession& session_;
    const SshOptions& options_;
    util::SteadyClock::time_point deadline_;
    std::string user_;
    std::vector<std::string> notes_;
    std::string rsa_key_;
};

}  // namespace

void authenticate(SshSession& session, const SshOptions& options, util::SteadyClock::time_point deadline) {
    Authenticator(session, options, deadline).run();
}

}  // namespace pdctl::exec::detail
