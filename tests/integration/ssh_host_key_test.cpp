// Host-key verification against the real sshd hosts: unknown keys refused by default, accept-new
// records them, changed keys always refused with both fingerprints, hashed and [host]:port entries.
#include <gtest/gtest.h>

#include "ssh_cluster.hpp"

namespace pdctl::testing {
namespace {

using exec::Command;
using exec::SshExecutor;

class SshHostKeyTest : public SshClusterTest {
  protected:
    // The public key line ("type base64") of a .pub file.
    static std::string key_of(const std::string& pub_file) {
        std::istringstream in(slurp(pub_file));
        std::string type, blob;
        in >> type >> blob;
        return type + " " + blob;
    }
    exec::CommandResult hostname(SshExecutor& executor, int i, int port = 22) {
        return executor.run(cluster.node(i, port), Command{{"hostname"}, {}, std::chrono::seconds(10)});
    }
};

TEST_F(SshHostKeyTest, UnknownHostIsRefusedByDefault) {
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    spit(options.known_hosts, "# nothing known yet\n");
    SshExecutor executor(options);
    const auto result = hostname(executor, 2);
    const auto& error = result.transport_error;
    EXPECT_NE(error.find("pdt2 (10.77.0.2:22)"), std::string::npos) << error;
    EXPECT_NE(error.find("unknown host key"), std::string::npos) << error;
    EXPECT_NE(error.find(openssh_fingerprint(host(2).host_key_pub)), std::string::npos) << error;
    EXPECT_NE(error.find("--accept-new-host-keys"), std::string::npos) << error;
    EXPECT_EQ(slurp(options.known_hosts), "# nothing known yet\n");  // nothing was recorded
}

TEST_F(SshHostKeyTest, AcceptNewRecordsTheKeyLikeOpenSsh) {
    auto options = cluster.options();
    options.known_hosts =
        (temp / "ssh" / "known_hosts").string();  // neither the file nor its directory exist
    options.accept_new_host_keys = true;
    {
        SshExecutor executor(options);
        const auto result = hostname(executor, 2);
        ASSERT_TRUE(result.ok()) << exec::failure_reason(result);
        EXPECT_EQ(result.out, "pdt2\n");
    }
    // The ed25519 key is preferred and recorded, in OpenSSH's format; OpenSSH's own tools read it.
    EXPECT_EQ(slurp(options.known_hosts), "10.77.0.2 " + key_of(host(2).host_key_pub) + "\n");
    EXPECT_EQ(
        std::filesystem::status(options.known_hosts).permissions() & std::filesystem::perms::others_read,
        std::filesystem::perms::none);
    local({"ssh-keygen", "-F", "10.77.0.2", "-f", options.known_hosts});

    // From now on the host is known: strict checking passes.
    options.accept_new_host_keys = false;
    SshExecutor strict(options);
    const auto again = hostname(strict, 2);
    EXPECT_TRUE(again.ok()) << exec::failure_reason(again);
}

TEST_F(SshHostKeyTest, ChangedKeyIsAlwaysRefusedWithBothFingerprints) {
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    // Host 3's entry holds another ed25519 key: what a reinstalled host, or a man in the middle, looks like.
    spit(options.known_hosts, "10.77.0.3 " + key_of(cluster.wrong_key + ".pub") + "\n");
    for (const bool accept_new : {false, true}) {
        options.accept_new_host_keys = accept_new;
        SshExecutor executor(options);
        const auto result = hostname(executor, 3);
        const auto& error = result.transport_error;
        EXPECT_NE(error.find("pdt3 (10.77.0.3:22)"), std::string::npos) << error;
        EXPECT_NE(error.find("HOST KEY CHANGED"), std::string::npos) << error;
        EXPECT_NE(error.find(openssh_fingerprint(cluster.wrong_key + ".pub")), std::string::npos) << error;
        EXPECT_NE(error.find(openssh_fingerprint(host(3).host_key_pub)), std::string::npos) << error;
        EXPECT_EQ(executor.connections_opened(), 0u);
    }
    EXPECT_EQ(slurp(options.known_hosts), "10.77.0.3 " + key_of(cluster.wrong_key + ".pub") + "\n");
}

TEST_F(SshHostKeyTest, HashedEntriesMatch) {
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    std::filesystem::copy_file(cluster.known_hosts, options.known_hosts);
    local({"ssh-keygen", "-H", "-f", options.known_hosts});
    ASSERT_EQ(slurp(options.known_hosts).find("10.77.0."), std::string::npos) << "not hashed";
    SshExecutor executor(options);
    for (int i : {1, 4, 8}) {
        const auto result = hostname(executor, i);
        EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
    }
}

TEST_F(SshHostKeyTest, PortEntriesMatchOnlyTheirPort) {
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    spit(options.known_hosts, "[10.77.0.4]:2222 " + key_of(host(4).host_key_pub) + "\n");
    SshExecutor executor(options);
    const auto on_2222 = hostname(executor, 4, 2222);
    EXPECT_TRUE(on_2222.ok()) << exec::failure_reason(on_2222);
    const auto on_22 = hostname(executor, 4, 22);
    EXPECT_NE(on_22.transport_error.find("unknown host key"), std::string::npos) << on_22.transport_error;
}

TEST_F(SshHostKeyTest, HostKeyTypeFollowsKnownHosts) {
    // Every host has ed25519 and ECDSA keys. The cluster's known_hosts lists only the ed25519 keys (all
    // other tests pass with it); a file with only the ECDSA key must work too.
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    const std::string ecdsa_pub = host(5).dir + "/ssh_host_ecdsa_key.pub";
    spit(options.known_hosts, "10.77.0.5 " + key_of(ecdsa_pub) + "\n");
    SshExecutor executor(options);
    const auto result = hostname(executor, 5);
    EXPECT_TRUE(result.ok()) << exec::failure_reason(result);
}

TEST_F(SshHostKeyTest, RecordedKeyTypeTheHostLacksIsRefused) {
    // known_hosts holds only an RSA key for host 1, which has none: pdctl offers only what is recorded,
    // so the handshake fails, and the message says why instead of a bare key-exchange error.
    auto options = cluster.options();
    options.known_hosts = (temp / "known_hosts").string();
    spit(options.known_hosts, "10.77.0.1 " + key_of(cluster.rsa_key + ".pub") + "\n");
    SshExecutor executor(options);
    const auto result = hostname(executor, 1);
    const auto& error = result.transport_error;
    EXPECT_NE(error.find("pdt1 (10.77.0.1:22): SSH handshake failed"), std::string::npos) << error;
    EXPECT_NE(error.find("did its host keys change?"), std::string::npos) << error;
    EXPECT_NE(error.find("SHA-1"), std::string::npos) << error;
}

}  // namespace
}  // namespace pdctl::testing
