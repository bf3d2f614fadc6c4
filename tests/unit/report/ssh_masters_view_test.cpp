// `pdctl ssh close`: the masters it ended, and the dead ones whose sockets it removed, named by node.
#include "pdctl/report/ssh_masters_view.hpp"

#include <gtest/gtest.h>

namespace pdctl::report {
namespace {

TEST(SshMastersView, NamesTheClosedMastersAndTheDeadOnesApart) {
    const std::vector<exec::ClosedMaster> closed = {
        {"n1 (10.77.0.1:22)", true}, {"n2 (10.77.0.2:22)", true}, {"n3 (10.77.0.3:22)", false}};
    EXPECT_EQ(render_closed_masters_text("/tmp/pdctl-ssh-0", closed),
              "closed 2 OpenSSH masters in /tmp/pdctl-ssh-0:\n"
              "  n1 (10.77.0.1:22)\n"
              "  n2 (10.77.0.2:22)\n"
              "removed the socket of 1 master that had died:\n"
              "  n3 (10.77.0.3:22)\n");
    EXPECT_EQ(closed_masters_to_json("/tmp/pdctl-ssh-0", closed).dump(),
              R"j({"closed":["n1 (10.77.0.1:22)","n2 (10.77.0.2:22)"],"control_dir":"/tmp/pdctl-ssh-0",)j"
              R"j("dead":["n3 (10.77.0.3:22)"]})j");
}

TEST(SshMastersView, SaysSoWhenThereWereNone) {
    EXPECT_EQ(render_closed_masters_text("/tmp/pdctl-ssh-0", {}), "no OpenSSH masters in /tmp/pdctl-ssh-0\n");
    EXPECT_EQ(render_closed_masters_text("/tmp/d", {{"n1 (10.77.0.1:22)", true}}),
              "closed 1 OpenSSH master in /tmp/d:\n  n1 (10.77.0.1:22)\n");
}

}  // namespace
}  // namespace pdctl::report
