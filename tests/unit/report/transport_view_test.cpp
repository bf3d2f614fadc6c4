#include "pdctl/report/transport_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

using exec::Transport;
using exec::TransportChoice;

const TransportChoice kPlain{Transport::Libssh2, "nothing in ssh -G needs OpenSSH", true};
const TransportChoice kJump{Transport::OpenSsh, "ProxyJump root@[10.77.0.250] (no jump hosts in libssh2 yet)",
                            true};

TEST(TransportView, RunsOfNodesWithTheSameChoiceAreOneAlignedLine) {
    const std::vector<NodeTransport> nodes = {{"n1", kPlain}, {"n2", kPlain}, {"n3", kPlain}, {"n4", kPlain},
                                              {"n5", kJump},  {"n6", kJump},  {"n7", kPlain}};
    EXPECT_EQ(render_transports_text(nodes),
              "SSH transport of each node (ssh.transport; docs/ssh.md):\n"
              "  n1–n4   libssh2  nothing in ssh -G needs OpenSSH\n"
              "  n5, n6  openssh  ProxyJump root@[10.77.0.250] (no jump hosts in libssh2 yet)\n"
              "  n7      libssh2  nothing in ssh -G needs OpenSSH\n");
    EXPECT_EQ(render_transports_text({}), "");
}

TEST(TransportView, JsonHasOneObjectPerNode) {
    const auto doc =
        transports_to_json({{"n5", kJump}, {"n6", {Transport::Libssh2, "ssh.transport: libssh2", false}}});
    ASSERT_EQ(doc.size(), 2u);
    EXPECT_EQ(doc[0]["node"], "n5");
    EXPECT_EQ(doc[0]["transport"], "openssh");
    EXPECT_EQ(doc[0]["automatic"], true);
    EXPECT_EQ(doc[1]["reason"], "ssh.transport: libssh2");
    EXPECT_EQ(doc[1]["automatic"], false);
}

}  // namespace
}  // namespace pdctl::report
