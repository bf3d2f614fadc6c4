// ~/.ssh/config honoured for a node's address, against the real hosts: an alias with HostName, User,
// Port and IdentityFile; ProxyJump refused before any connection is made.
#include <gtest/gtest.h>

#include "ssh_cluster.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::SshExecutor;

class SshConfigTest : public SshClusterTest {
  protected:
    static config::Node alias_node(const std::string& name, const std::string& alias) {
        config::Node node;  // pdctl.yaml gives only the address: user, port and key come from the ssh config
        node.name = name;
        node.address = alias;
        return node;
    }
};

TEST_F(SshConfigTest, AliasResolvesThroughHostNamePortAndIdentityFile) {
    const auto config_file = temp / "config";
    spit(config_file,
         "# operator's aliases\n"
         "Host gpu-*\n"
         "    User root\n"
         "    IdentityFile " +
             cluster.key +
             "\n"
             "Host gpu-6\n"
             "    HostName 10.77.0.6\n"
             "    Port 2222\n"
             "Host gpu-9\n"
             "    HostName 10.77.0.6\n"
             "    Port 2299\n"
             "Host *\n"
             "    Port 22\n");
    auto options = cluster.options();
    options.ssh_config = config_file.string();
    auto known = slurp(cluster.known_hosts);
    known += "[10.77.0.6]:2222 " +
             slurp(host(6).host_key_pub).substr(0, slurp(host(6).host_key_pub).rfind(' ')) + "\n";
    options.known_hosts = (temp / "known_hosts").string();
    spit(options.known_hosts, known);
    SshExecutor executor(options);

    const auto result =
        executor.run(alias_node("gpu6", "gpu-6"),
                     Command{{"sh", "-c", "hostname; echo $SSH_CONNECTION"}, {}, std::chrono::seconds(10)});
    ASSERT_TRUE(result.ok()) << exec::failure_reason(result);
    EXPECT_EQ(result.out.substr(0, 5), "pdt6\n");
    EXPECT_NE(result.out.find("10.77.0.6 2222"), std::string::npos) << result.out;

    // Errors show the alias and what it resolved to.
    const auto closed =
        executor.run(alias_node("gpu9", "gpu-9"), Command{{"true"}, {}, std::chrono::seconds(10)});
    EXPECT_NE(closed.transport_error.find("gpu9 (gpu-9 \u2192 10.77.0.6:2299): connection refused"),
              std::string::npos)
        << closed.transport_error;

    // A value set in pdctl.yaml wins over the ssh config.
    auto explicit_port = alias_node("gpu6b", "gpu-6");
    explicit_port.ssh.port = 2299;
    const auto overridden = executor.run(explicit_port, Command{{"true"}, {}, std::chrono::seconds(10)});
    EXPECT_NE(overridden.transport_error.find("10.77.0.6:2299"), std::string::npos)
        << overridden.transport_error;
}

TEST_F(SshConfigTest, ProxyJumpIsRefusedAsNotSupportedYet) {
    const auto config_file = temp / "config";
    spit(config_file, "Host behind-bastion\n    HostName 10.77.0.2\n    ProxyJump root@10.77.0.1\n");
    auto options = cluster.options();
    options.ssh_config = config_file.string();
    SshExecutor executor(options);
    auto node = alias_node("gpu2", "behind-bastion");
    node.ssh.identity = cluster.key;
    const auto result = executor.run(node, Command{{"true"}, {}, std::chrono::seconds(10)});
    EXPECT_NE(result.transport_error.find("ProxyJump root@10.77.0.1"), std::string::npos)
        << result.transport_error;
    EXPECT_NE(result.transport_error.find("does not support jump hosts yet; use `ssh.transport: auto`"),
              std::string::npos)
        << result.transport_error;
    EXPECT_EQ(executor.connections_opened(), 0u);
}

}  // namespace
}  // namespace pdctl::testing
