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

// `doctor: ignore:` quiets one rule, not all: shown once with the site's reason, and no longer an error.
TEST(DoctorCli, AnAcknowledgedRuleIsShownOnceWithItsReason) {
    SimCluster cluster("doctor-ack", kBlock);
    cluster.append("prefill.env",
                   "# assumption: the GID index of the site's NCCL NICs\nNCCL_IB_GID_INDEX=3\n"
                   "# assumption: the GID index of the site's RoCE NICs\nMC_GID_INDEX=3\n");
    break_prefill(cluster);
    const auto before = cluster.run({"doctor", "--static"});
    EXPECT_EQ(before.exit_code, 2) << before.out;
    EXPECT_NE(before.out.find("WARN   PD014"), std::string::npos) << before.out;

    cluster.append("pdctl.yaml",
                   "doctor:\n  ignore:\n"
                   "    - {rule: PD014, reason: \"confirmed on site by ops, 2026-12\"}\n"
                   "    - {rule: PD001, reason: \"Mooncake here has the fix\"}\n");
    const auto run = cluster.run({"doctor", "--static"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(run.out.find("WARN"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("ERROR"), std::string::npos) << run.out;
    const auto ack = run.out.find("ACK    PD014 ");
    ASSERT_NE(ack, std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("PD014", ack + 10), std::string::npos) << "once: " << run.out;
    EXPECT_NE(
        run.out.find("acknowledged, 2 findings held back\n             reason: confirmed on site by ops, "
                     "2026-12\n"),
        std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("ACK    PD001 "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("1 finding held back (1 would block a start)"), std::string::npos) << run.out;

    // A rule that does not exist is a config error at its line, not a silent no-op.
    cluster.append("pdctl.yaml", "    - {rule: PD099, reason: typo}\n");
    const auto typo = cluster.run({"doctor", "--static"});
    EXPECT_EQ(typo.exit_code, 2);
    EXPECT_NE(typo.err.find("pdctl.yaml:"), std::string::npos) << typo.err;
    EXPECT_NE(typo.err.find("doctor.ignore[2].rule: no doctor rule or check is called PD099"),
              std::string::npos)
        << typo.err;
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
