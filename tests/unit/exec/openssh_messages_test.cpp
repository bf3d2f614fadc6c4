#include "pdctl/exec/openssh_messages.hpp"

#include <gtest/gtest.h>

namespace pdctl::exec {
namespace {

const OpenSshFailureContext kWhere{"root", "10.77.0.5", 22, "/tmp/kh"};

// The texts below are what OpenSSH 9.2 prints at LogLevel ERROR (captured on the SSH test cluster).
TEST(OpenSshMessages, AChangedHostKeySaysBothSidesAndHowToRemoveTheOldOne) {
    const auto text = describe_openssh_failure(
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
        "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"
        "The fingerprint for the ED25519 key sent by the remote host is\n"
        "SHA256:Jd7ZQ0dQ2mJQKx2Xw0aSxk1m2bq1u0nH2v9m8y6J0aA.\n"
        "Offending ED25519 key in /tmp/kh:3\n"
        "Host key verification failed.\n",
        kWhere);
    EXPECT_NE(text.find("HOST KEY CHANGED"), std::string::npos) << text;
    EXPECT_NE(text.find("/tmp/kh:3"), std::string::npos) << text;
    EXPECT_NE(text.find("SHA256:Jd7ZQ0dQ2mJQKx2Xw0aSxk1m2bq1u0nH2v9m8y6J0aA"), std::string::npos) << text;
    EXPECT_NE(text.find("ssh-keygen -R '10.77.0.5' -f /tmp/kh"), std::string::npos) << text;
}

// Through a ProxyJump the key ssh could not verify may be the jump host's: the message names the
// host ssh names, not the node.
TEST(OpenSshMessages, AnUnknownJumpHostIsNamedItself) {
    const auto text = describe_openssh_failure(
        "No ED25519 host key is known for 10.77.0.250 and you have requested strict checking.\n"
        "Host key verification failed.\nConnection closed by UNKNOWN port 65535\n",
        kWhere);
    EXPECT_EQ(text.rfind("unknown host 10.77.0.250: /tmp/kh has no key for it", 0), 0u) << text;
}

TEST(OpenSshMessages, EachCommonCauseIsNamedFirst) {
    EXPECT_EQ(describe_openssh_failure("No ED25519 host key is known for 10.77.0.5 and you have requested "
                                       "strict checking.\nHost key verification failed.\n",
                                       kWhere)
                  .rfind("unknown host 10.77.0.5:", 0),
              0u);
    EXPECT_EQ(describe_openssh_failure("root@10.77.0.5: Permission denied (publickey).\n", kWhere)
                  .rfind("authentication as root failed", 0),
              0u);
    EXPECT_EQ(describe_openssh_failure("ssh: connect to host 10.77.0.5 port 22: Connection refused\n", kWhere)
                  .rfind("connection refused", 0),
              0u);
    EXPECT_EQ(
        describe_openssh_failure("ssh: connect to host 10.77.0.5 port 22: Connection timed out\n", kWhere)
            .rfind("connect timed out", 0),
        0u);
    EXPECT_EQ(describe_openssh_failure("ssh: Could not resolve hostname nowhere: Name or service not known\n",
                                       kWhere)
                  .rfind("cannot resolve host name", 0),
              0u);
    EXPECT_EQ(describe_openssh_failure("", kWhere), "ssh exited 255 and printed nothing");
    EXPECT_EQ(describe_openssh_failure("something new\n", kWhere), "ssh: something new");
}

}  // namespace
}  // namespace pdctl::exec
