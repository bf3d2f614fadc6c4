// `pdctl doctor` and the doctor gate of `start`, run as the real binary on a copy of the local
// simulated cluster moved to 127.0.70.x (executor local: nothing outside this machine is touched).
#include <gtest/gtest.h>

#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

constexpr int kBlock = 70;         // never started: the gate refuses, or only `doctor` runs
constexpr int kStartedBlock = 71;  // really started, so it must not share addresses with kBlock

// The production mistake the runbook paid for most: expandable segments in a prefill container.
void break_prefill(SimCluster& cluster) {
    cluster.append("prefill.env", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n");
}

TEST(DoctorCli, CleanLocalProfilePassesWithLoopbackNotes) {
    SimCluster cluster("doctor-clean", kBlock);
    const auto run = cluster.run({"doctor"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("INFO   PD010"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("0 errors, 0 warnings"), std::string::npos) << run.out;
}

// The live checks on the simulated cluster: every node probed, GPU checks replaced by one info.
TEST(DoctorCli, LiveChecksOnTheLocalProfileSayItIsSimulated) {
    SimCluster cluster("doctor-live", kBlock);
    const auto run = cluster.run({"doctor"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("INFO   GPU001 n1,n2,n3,n4,n5,n6,n7,n8  8 simulated nodes"), std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("checks on 8 nodes passed ("), std::string::npos) << run.out;

    const auto json_run = cluster.run({"doctor", "--json"});
    const auto document = nlohmann::json::parse(json_run.out);
    EXPECT_EQ(document["live"]["nodes"], 8);
    EXPECT_EQ(document["live"]["unreachable"], 0);
    EXPECT_EQ(document["errors"], 0);
    EXPECT_EQ(document["warnings"], 0);

    const auto static_run = cluster.run({"doctor", "--static"});
    EXPECT_EQ(static_run.exit_code, 0);
    EXPECT_EQ(static_run.out.find("GPU001"), std::string::npos) << static_run.out;
    EXPECT_NE(static_run.out.find("(no node touched)"), std::string::npos) << static_run.out;
}

TEST(DoctorCli, BrokenProfileExitsTwoAndNamesTheRuleAndLine) {
    SimCluster cluster("doctor-broken", kBlock);
    break_prefill(cluster);
    const auto run = cluster.run({"doctor"});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.out.find("ERROR  PD001 "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("prefill.env:9:1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("fix: remove expandable_segments"), std::string::npos) << run.out;

    const auto json_run = cluster.run({"doctor", "--json"});
    EXPECT_EQ(json_run.exit_code, 2);
    const auto document = nlohmann::json::parse(json_run.out);
    EXPECT_EQ(document["errors"], 1);
    EXPECT_EQ(document["warnings"], 0);
    EXPECT_EQ(document["findings"][0]["id"], "PD001");
    EXPECT_EQ(document["findings"][0]["severity"], "error");
}

TEST(DoctorCli, StartRefusesABrokenProfileBeforeTouchingAnything) {
    SimCluster cluster("doctor-start", kBlock);
    break_prefill(cluster);
    const auto run = cluster.run({"start"});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("ERROR  PD001 "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("start refused"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--skip-doctor"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("INFO"), std::string::npos) << "the gate prints errors and warnings only";
    EXPECT_TRUE(cluster.live_pdsim_processes().empty());
    EXPECT_FALSE(std::filesystem::exists(cluster.state_dir())) << "no unit was started";

    const auto json_run = cluster.run({"--json", "restart"});
    EXPECT_EQ(json_run.exit_code, 2);
    const auto events = json_run.events();
    ASSERT_EQ(events.size(), 1u) << json_run.out;
    EXPECT_EQ(events[0]["event"], "doctor");
    EXPECT_EQ(events[0]["refused"], true);
    EXPECT_EQ(events[0]["findings"][0]["id"], "PD001");
}

TEST(DoctorCli, SkipDoctorStartsAnywayForEmergencies) {
    SimCluster cluster("doctor-skip", kStartedBlock);
    break_prefill(cluster);
    const auto run = cluster.run({"start", "--skip-doctor"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(run.err.find("PD001"), std::string::npos) << run.err;
    EXPECT_EQ(cluster.run({"stop"}).exit_code, 0);
}

}  // namespace
}  // namespace pdctl::testing
