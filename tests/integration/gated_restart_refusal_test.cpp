// restart --gated refuses what it cannot do before it touches anything (engine/gated_restart.hpp): on
// the simulated cluster, whose groups run as processes, and without a scope or beside --rolling. The
// gated restart itself runs in containers: ssh_gated_restart_test.cpp.
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

TEST(GatedRestart, IsRefusedWithItsReasonBeforeAnythingIsTouched) {
    SimCluster cluster("gatedno", 203);

    const auto unscoped = cluster.run({"restart", "--gated"});
    EXPECT_EQ(unscoped.exit_code, 2) << unscoped.out << unscoped.err;
    EXPECT_NE(unscoped.err.find("name them with --role or --group"), std::string::npos) << unscoped.err;

    const auto both = cluster.run({"restart", "--gated", "--rolling", "--role", "decode"});
    EXPECT_EQ(both.exit_code, 2) << both.out << both.err;
    EXPECT_NE(both.err.find("choose one"), std::string::npos) << both.err;

    const auto processes = cluster.run({"restart", "--gated", "--role", "decode"});
    EXPECT_EQ(processes.exit_code, 2) << processes.out << processes.err;
    EXPECT_NE(processes.err.find("runs as processes (runtime: process)"), std::string::npos) << processes.err;
    EXPECT_NE(processes.err.find("nothing was touched"), std::string::npos) << processes.err;

    // Nothing was started by any of them.
    EXPECT_EQ(cluster.run({"status"}).exit_code, 8);
}

}  // namespace
}  // namespace pdctl::testing
