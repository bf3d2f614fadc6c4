#include "pdctl/exec/ssh_target.hpp"

#include <gtest/gtest.h>

namespace pdctl::exec {
namespace {

config::Node node(const std::string& address) {
    config::Node n;
    n.name = "gpu1";
    n.address = address;
    return n;
}

const SshConfig kConfig = SshConfig::parse(
    "Host web\n"
    "  HostName %h.internal\n"
    "  User deploy\n"
    "  Port 2222\n"
    "  IdentityFile ~/.ssh/%r_%h\n"
    "  IdentityFile none\n"
    "Host jump\n  ProxyJump bastion\n"
    "Host nojump\n  ProxyJump none\n",
    "config", ".");

TEST(SshTarget, WithoutSshConfigThePdctlValuesAreUsed) {
    auto n = node("10.0.0.1");
    n.ssh.identity = "~/keys/id";
    const auto target = resolve_target(n, SshConfig{}, "/home/op", "op");
    EXPECT_EQ(target.host, "10.0.0.1");
    EXPECT_EQ(target.user, "root");
    EXPECT_EQ(target.port, 22);
    EXPECT_EQ(target.identities, std::vector<std::string>{"/home/op/keys/id"});
    EXPECT_TRUE(target.unsupported.empty());
    EXPECT_EQ(target.describe(), "gpu1 (10.0.0.1:22)");
}

TEST(SshTarget, SshConfigFillsWhatPdctlYamlLeavesAtItsDefault) {
    const auto target = resolve_target(node("web"), kConfig, "/home/op", "op");
    EXPECT_EQ(target.host, "web.internal");
    EXPECT_EQ(target.user, "deploy");
    EXPECT_EQ(target.port, 2222);
    EXPECT_EQ(target.identities, std::vector<std::string>{"/home/op/.ssh/deploy_web.internal"});
    EXPECT_EQ(target.describe(), "gpu1 (web \u2192 web.internal:2222)");
}

TEST(SshTarget, ExplicitPdctlValuesWin) {
    auto n = node("web");
    n.ssh.user = "ops";
    n.ssh.user_given = true;
    n.ssh.port = 2022;
    n.ssh.port_given = true;
    n.ssh.identity = "/keys/ops";
    const auto target = resolve_target(n, kConfig, "/home/op", "op");
    EXPECT_EQ(target.host, "web.internal");  // HostName comes only from the ssh config
    EXPECT_EQ(target.user, "ops");
    EXPECT_EQ(target.port, 2022);
    EXPECT_EQ(target.identities, std::vector<std::string>{"/keys/ops"});
}

// `ssh: {user: root, port: 22}` written in pdctl.yaml is the operator's word too, though it equals
// the built-in defaults: it beats the ssh config's User/Port.
TEST(SshTarget, ExplicitValuesEqualToTheDefaultsStillWin) {
    auto n = node("web");
    n.ssh.user_given = true;
    n.ssh.port_given = true;
    const auto target = resolve_target(n, kConfig, "/home/op", "op");
    EXPECT_EQ(target.user, "root");
    EXPECT_EQ(target.port, 22);
}

TEST(SshTarget, ProxyJumpIsUnsupportedUnlessNone) {
    EXPECT_NE(
        resolve_target(node("jump"), kConfig, "/h", "u").unsupported.find("does not support jump hosts yet"),
        std::string::npos);
    EXPECT_TRUE(resolve_target(node("nojump"), kConfig, "/h", "u").unsupported.empty());
}

TEST(SshTarget, Ipv6AddressesAreBracketed) {
    EXPECT_EQ(resolve_target(node("fd00::7"), SshConfig{}, "/h", "u").address(), "[fd00::7]:22");
}

TEST(SshTarget, HomeExpansion) {
    EXPECT_EQ(expand_home("~/.ssh/id", "/root"), "/root/.ssh/id");
    EXPECT_EQ(expand_home("~", "/root"), "/root");
    EXPECT_EQ(expand_home("/abs/~/x", "/root"), "/abs/~/x");
    EXPECT_EQ(expand_home("~other/x", "/root"), "~other/x");
}

}  // namespace
}  // namespace pdctl::exec
