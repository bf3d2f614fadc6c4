#include "pdctl/exec/openssh_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::exec {
namespace {

// Lines as OpenSSH 9.2's `ssh -G` prints them (keywords lower case, one value per line).
TEST(OpenSshView, ReadsWhatDecidesTheTransport) {
    const auto view = parse_ssh_g(
        "host n5\n"
        "user ops\n"
        "hostname 10.77.0.5\n"
        "port 2022\n"
        "gssapiauthentication yes\n"
        "identityfile ~/.ssh/id_rsa\n"
        "identityfile ~/.ssh/id_ed25519\n"
        "certificatefile ~/.ssh/id_ed25519-cert.pub\n"
        "proxyjump root@[10.77.0.250]\n"
        "proxycommand none\n"
        "controlpersist no\n");
    EXPECT_EQ(view.user, "ops");
    EXPECT_EQ(view.hostname, "10.77.0.5");
    EXPECT_EQ(view.port, 2022);
    EXPECT_TRUE(view.gssapi);
    EXPECT_EQ(view.identity_files, (std::vector<std::string>{"~/.ssh/id_rsa", "~/.ssh/id_ed25519"}));
    EXPECT_EQ(view.certificate_files, (std::vector<std::string>{"~/.ssh/id_ed25519-cert.pub"}));
    EXPECT_EQ(view.proxy_jump, "root@[10.77.0.250]");
    EXPECT_EQ(view.proxy_command, "");
}

TEST(OpenSshView, NoneAndNonsenseLeaveTheDefaults) {
    const auto view = parse_ssh_g("proxyjump none\nport http\ngssapiauthentication no\nhostname\n");
    EXPECT_EQ(view.proxy_jump, "");
    EXPECT_EQ(view.port, 22);
    EXPECT_FALSE(view.gssapi);
    EXPECT_EQ(view.hostname, "");
}

}  // namespace
}  // namespace pdctl::exec
