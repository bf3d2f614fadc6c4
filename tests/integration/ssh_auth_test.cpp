// Authentication against the real sshd hosts: wrong key, RSA key (refused by OpenSSH >= 8.8 from
// libssh2 1.10, with the explanation), encrypted ECDSA key with a passphrase, ssh-agent, default keys.
#include <gtest/gtest.h>

#include "ssh_cluster.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::SshExecutor;

class SshAuthTest : public SshClusterTest {
  protected:
    config::Node node_with_key(int i, const std::string& key) const {
        auto node = cluster.node(i);
        node.ssh.identity = key;
        return node;
    }
    static exec::CommandResult whoami(SshExecutor& executor, const config::Node& node) {
        return executor.run(node, Command{{"id", "-un"}, {}, std::chrono::seconds(10)});
    }
    std::string passphrase() const {
        std::string text = slurp(cluster.ecdsa_passphrase_file);
        while (!text.empty() && text.back() == '\n') text.pop_back();
        return text;
    }
};

TEST_F(SshAuthTest, WrongKeyIsAnAuthenticationError) {
    SshExecutor executor(cluster.options());
    const auto result = whoami(executor, node_with_key(2, cluster.wrong_key));
    const auto& error = result.transport_error;
    EXPECT_NE(error.find("pdt2 (10.77.0.2:22)"), std::string::npos) << error;
    EXPECT_NE(error.find("authentication as root failed"), std::string::npos) << error;
    EXPECT_NE(error.find(cluster.wrong_key + " (ssh-ed25519) was refused"), std::string::npos) << error;
}

TEST_F(SshAuthTest, RsaKeyGetsTheExplanation) {
    // The RSA key IS in authorized_keys: the login fails only because libssh2 1.10 signs with SHA-1.
    SshExecutor executor(cluster.options());
    const auto result = whoami(executor, node_with_key(3, cluster.rsa_key));
    const auto& error = result.transport_error;
    EXPECT_NE(error.find("pdt3"), std::string::npos) << error;
    EXPECT_NE(error.find("is an RSA key"), std::string::npos) << error;
    EXPECT_NE(error.find("libssh2 1.10"), std::string::npos) << error;
    EXPECT_NE(error.find("SHA-1"), std::string::npos) << error;
    EXPECT_NE(error.find("ssh-keygen -t ed25519"), std::string::npos) << error;
}

TEST_F(SshAuthTest, EncryptedEcdsaKeyNeedsItsPassphrase) {
    {
        SshExecutor executor(cluster.options());
        const auto result = whoami(executor, node_with_key(4, cluster.ecdsa_key));
        EXPECT_NE(result.transport_error.find("is encrypted: set PDCTL_SSH_PASSPHRASE"), std::string::npos)
            << result.transport_error;
    }
    {
        auto options = cluster.options();
        options.passphrase = "not-the-passphrase";
        SshExecutor executor(options);
        const auto result = whoami(executor, node_with_key(4, cluster.ecdsa_key));
        EXPECT_NE(result.transport_error.find("cannot be loaded (wrong PDCTL_SSH_PASSPHRASE?)"),
                  std::string::npos)
            << result.transport_error;
        EXPECT_EQ(result.transport_error.find("not-the-passphrase"), std::string::npos)
            << "passphrase leaked";
    }
    auto options = cluster.options();
    options.passphrase = passphrase();
    SshExecutor executor(options);
    const auto result = whoami(executor, node_with_key(4, cluster.ecdsa_key));
    EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
    EXPECT_EQ(result.out, "root\n");
}

TEST_F(SshAuthTest, AgentKeysAreUsed) {
    const std::string socket = (temp / "agent.sock").string();
    const auto agent = local({"ssh-agent", "-s", "-a", socket});
    const auto at = agent.out.find("SSH_AGENT_PID=");
    ASSERT_NE(at, std::string::npos) << agent.out;
    const int agent_pid = std::atoi(agent.out.c_str() + at + 14);
    ASSERT_GT(agent_pid, 1);
    Restore stop_agent([&] { stop_process(agent_pid); });
    local({"env", "SSH_AUTH_SOCK=" + socket, "ssh-add", "-q", cluster.key});

    auto options = cluster.options();
    options.agent_socket = socket;
    SshExecutor executor(options);
    auto node = cluster.node(5);
    node.ssh.identity.clear();  // no key file: only the agent can log in
    const auto result = whoami(executor, node);
    EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
}

TEST_F(SshAuthTest, DefaultKeysAreTriedWhenNoneIsNamed) {
    auto node = cluster.node(6);
    node.ssh.identity.clear();
    {
        SshExecutor executor(cluster.options());  // no defaults, no agent
        const auto result = whoami(executor, node);
        EXPECT_NE(result.transport_error.find("no key to offer"), std::string::npos)
            << result.transport_error;
    }
    auto options = cluster.options();
    options.default_identities = {(temp / "id_missing").string(), cluster.key};
    SshExecutor executor(options);
    const auto result = whoami(executor, node);
    EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
}

}  // namespace
}  // namespace pdctl::testing
