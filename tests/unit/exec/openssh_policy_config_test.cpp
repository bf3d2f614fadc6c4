// pdctl's host-key policy as the ssh config file every ssh of a run reads first, the jump host's
// `ssh -W` included: the policy before the operator's files, whose paths are quoted.
#include "pdctl/exec/openssh_policy_config.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pdctl::exec {
namespace {

TEST(OpenSshPolicyConfig, ThePolicyComesFirstThenTheOperatorsOwnFiles) {
    OpenSshOptions options;
    options.known_hosts = "/home/op/.config/pdctl/known hosts";
    EXPECT_EQ(openssh_policy_config(options, "/home/op"),
              "# Written by pdctl: its host-key policy for every ssh, a ProxyJump's included, then\n"
              "# the operator's own ssh config.\n"
              "Host *\n"
              "  BatchMode yes\n"
              "  StrictHostKeyChecking yes\n"
              "  UserKnownHostsFile \"/home/op/.config/pdctl/known hosts\"\n"
              "  UpdateHostKeys no\n"
              "  Include \"/home/op/.ssh/config\"\n"
              "  Include \"/etc/ssh/ssh_config\"\n");
}

TEST(OpenSshPolicyConfig, AGivenConfigReplacesBothDefaultFilesAndAcceptNewIsKept) {
    OpenSshOptions options;
    options.known_hosts = "/kh";
    options.ssh_config = "/etc/pdctl/ssh_config";
    options.accept_new_host_keys = true;
    const auto text = openssh_policy_config(options, "/home/op");
    EXPECT_NE(text.find("  StrictHostKeyChecking accept-new\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  Include \"/etc/pdctl/ssh_config\"\n"), std::string::npos) << text;
    EXPECT_EQ(text.find(".ssh/config"), std::string::npos) << text;
    EXPECT_EQ(text.find("/etc/ssh/ssh_config"), std::string::npos) << text;
    EXPECT_EQ(text.find("StrictHostKeyChecking no"), std::string::npos);
}

TEST(OpenSshPolicyConfig, APathAnSshConfigCannotQuoteIsRefused) {
    OpenSshOptions options;
    options.known_hosts = "/tmp/a\"b";
    EXPECT_THROW(openssh_policy_config(options, "/home/op"), std::invalid_argument);
    options.known_hosts = "/kh";
    options.ssh_config = "/tmp/line\nbreak";
    EXPECT_THROW(openssh_policy_config(options, "/home/op"), std::invalid_argument);
}

TEST(OpenSshPolicyConfig, NoConfigAtAllIncludesNothing) {
    OpenSshOptions options;
    options.known_hosts = "/kh";
    options.ssh_config = "/dev/null";
    const auto text = openssh_policy_config(options, "/home/op");
    EXPECT_EQ(text.find("Include"), std::string::npos) << text;
    EXPECT_NE(text.find("  UserKnownHostsFile \"/kh\"\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace pdctl::exec
