// The one place pdctl's node paths are built: the lock and journal directory and every node's unit
// directory must agree, also for a state_dir of "/" (they once did not: "/kimi3" against "//kimi3/n1").
#include "pdctl/config/state_paths.hpp"

#include <gtest/gtest.h>

namespace pdctl::config {
namespace {

TEST(StatePaths, ClusterAndNodeDirectoriesAgreeWhateverTheTrailingSlashes) {
    for (const std::string state_dir : {"/var/lib/pdctl", "/var/lib/pdctl/", "/var/lib/pdctl//"}) {
        EXPECT_EQ(cluster_state_dir(state_dir, "kimi3"), "/var/lib/pdctl/kimi3") << state_dir;
        EXPECT_EQ(node_state_dir(state_dir, "kimi3", "n1"), "/var/lib/pdctl/kimi3/n1") << state_dir;
    }
}

TEST(StatePaths, TheRootAsStateDirHasNoDoubleSlash) {
    EXPECT_EQ(cluster_state_dir("/", "kimi3"), "/kimi3");
    EXPECT_EQ(node_state_dir("/", "kimi3", "n1"), "/kimi3/n1");
}

}  // namespace
}  // namespace pdctl::config
