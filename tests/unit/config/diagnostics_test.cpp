#include "pdctl/config/diagnostics.hpp"

#include <gtest/gtest.h>

namespace pdctl::config {
namespace {

TEST(ConfigDiagnostic, FormatsLocationKeyPathMessageAndHint) {
    const Diagnostic diagnostic{
        {"pdctl.yaml", 7, 5}, "roles.prefill.prot", "unknown key", "did you mean `port`?"};
    EXPECT_EQ(diagnostic.format(),
              "pdctl.yaml:7:5: error: roles.prefill.prot: unknown key (hint: did you mean `port`?)");
}

TEST(ConfigDiagnostic, LeavesOutWhatIsUnknown) {
    EXPECT_EQ((Diagnostic{{"a.yaml", 3, 0}, "", "bad", ""}.format()), "a.yaml:3: error: bad");
    EXPECT_EQ((Diagnostic{{"a.yaml", 0, 0}, "cluster", "bad", ""}.format()), "a.yaml: error: cluster: bad");
    EXPECT_EQ((Diagnostic{{}, "", "bad", "fix it"}.format()), "error: bad (hint: fix it)");
}

TEST(ConfigError, WhatListsEveryDiagnosticThenACountWithTheFiles) {
    const ConfigError error({{{"a.yaml", 1, 1}, "x", "first", ""},
                             {{"b.env", 2, 3}, "y", "second", "h"},
                             {{"a.yaml", 4, 1}, "z", "third", ""}});
    EXPECT_STREQ(error.what(),
                 "a.yaml:1:1: error: x: first\n"
                 "b.env:2:3: error: y: second (hint: h)\n"
                 "a.yaml:4:1: error: z: third\n"
                 "3 errors in a.yaml, b.env");
    EXPECT_EQ(error.diagnostics().size(), 3u);
}

TEST(ConfigError, SingularForOneError) {
    const ConfigError error({{{"a.yaml", 1, 1}, "", "broken", ""}});
    EXPECT_STREQ(error.what(), "a.yaml:1:1: error: broken\n1 error in a.yaml");
}

TEST(ConfigDiagnostics, CollectsInOrder) {
    Diagnostics diags;
    EXPECT_TRUE(diags.empty());
    diags.error({"f", 1, 1}, "a", "one");
    diags.error({"f", 2, 1}, "b", "two", "hint");
    ASSERT_EQ(diags.items().size(), 2u);
    EXPECT_EQ(diags.items()[1].hint, "hint");
}

TEST(DidYouMean, SuggestsTheClosestWithinAThirdOfTheLength) {
    EXPECT_EQ(did_you_mean("prot", {"host", "port", "program"}), "did you mean `port`?");
    EXPECT_EQ(did_you_mean("bootstrap_prot", {"bootstrap_port", "port"}), "did you mean `bootstrap_port`?");
    EXPECT_EQ(did_you_mean("NCCL_IB_HAC", {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME"}),
              "did you mean `NCCL_IB_HCA`?");
}

TEST(DidYouMean, AnAdjacentSwapIsOneEdit) {
    EXPECT_EQ(did_you_mean("prot", {"port"}), "did you mean `port`?");
    EXPECT_EQ(did_you_mean("ba", {"ab"}), "did you mean `ab`?");
    EXPECT_EQ(did_you_mean("metrics_prot", {"metrics_port"}), "did you mean `metrics_port`?");
}

TEST(DidYouMean, AllowsOneEditForShortWords) {
    EXPECT_EQ(did_you_mean("n", {"n1"}), "did you mean `n1`?");
    EXPECT_EQ(did_you_mean("ab", {"xy"}), "");
}

TEST(DidYouMean, NothingWhenTooFarOrNoCandidates) {
    EXPECT_EQ(did_you_mean("completely", {"port", "host"}), "");
    EXPECT_EQ(did_you_mean("port", {}), "");
    // 12 letters allow 4 edits, 5 is too many.
    EXPECT_EQ(did_you_mean("metricsxport", {"metrics_port"}), "did you mean `metrics_port`?");
    EXPECT_EQ(did_you_mean("abcdefghijkl", {"abcdefgvwxyz"}), "");
}

TEST(DidYouMean, FirstOfEquallyCloseCandidatesWins) {
    EXPECT_EQ(did_you_mean("n3", {"n1", "n2"}), "did you mean `n1`?");
}

}  // namespace
}  // namespace pdctl::config
