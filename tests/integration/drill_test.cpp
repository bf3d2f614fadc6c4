// pdctl drill on the simulated cluster (issue 31): two prefill and two decode groups behind SMG, a
// cluster file that says `drills: allowed`. Each fault under load through the router: the requests that
// failed and when, time to detect and to recover, recovered by heal without a person. A cluster file
// without the guard is refused and nothing is touched. The numbers printed here are docs/drills.md's.
#include <gtest/gtest.h>

#include <cstdio>

#include "pdctl/report/junit.hpp"
#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

struct DrillCluster {
    // Two 2-node groups of TP 16 for prefill and for decode behind SMG with fast health checks, drills
    // allowed.
    static void prepare(SimCluster& cluster) {
        auto text = read_text(cluster.config());
        two_groups_each(text, "smg");
        write_text(cluster.config(), "drills: allowed\n" + text);
    }

    // `pdctl --json drill ARGS`: its result object (the last JSON line).
    static json drill(const SimCluster& cluster, std::vector<std::string> args, int& exit_code) {
        args.insert(args.begin(), {"--json", "drill"});
        const auto run = cluster.run(args, std::chrono::seconds(300));
        exit_code = run.exit_code;
        json result;
        for (const auto& line : run.events())
            if (line.contains("recover_ms")) result = line;
        if (!result.is_object()) ADD_FAILURE() << "no drill result:\n" << run.out << run.err;
        return result;
    }

    static void print(const json& result) {
        std::printf(
            "[ drill ] %s: %s; %d of %d requests failed (%.1fs to %.1fs after the fault); detected after "
            "%lld "
            "ms; recovered after %lld ms by %s, %d heal pass(es)\n",
            result.value("fault", "").c_str(), result.value("target", "").c_str(), result.value("failed", 0),
            result.value("sent", 0), result.value("first_failure_s", -1.0),
            result.value("last_failure_s", -1.0), result.value("detect_ms", -1LL),
            result.value("recover_ms", -1LL), result.value("recovered_by", "").c_str(),
            result.value("heal_passes", 0));
    }

    static void expect_recovered_by_heal(const json& result) {
        EXPECT_GE(result.value("detect_ms", -1LL), 0) << result.dump(2);
        EXPECT_GT(result.value("recover_ms", -1LL), result.value("detect_ms", -1LL)) << result.dump(2);
        EXPECT_EQ(result.value("recovered_by", ""), "heal") << result.dump(2);
        EXPECT_EQ(result.value("needed_person", true), false) << result.dump(2);
        EXPECT_GT(result.value("sent", 0), 0) << result.dump(2);
    }
};

TEST(Drill, WithoutDrillsAllowedItIsRefusedAndTouchesNothing) {
    SimCluster cluster("drillno", 116);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto before = running_unit_pids(cluster);
    const auto refused = cluster.run({"drill", "kill-rank"});
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("drills are refused on cluster drillno"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("drills: allowed"), std::string::npos) << refused.err;
    EXPECT_EQ(running_unit_pids(cluster), before);
    const auto unknown = cluster.run({"drill", "unplug-everything"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
    EXPECT_NE(unknown.err.find("kill-rank, hang-rank, kill-router, kill-master, partition"),
              std::string::npos)
        << unknown.err;
}

TEST(Drill, AKilledAndAHungRankAreDetectedAndHealedUnderLoad) {
    SimCluster cluster("drillrank", 117);
    DrillCluster::prepare(cluster);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto junit = cluster.config().parent_path() / "drill.xml";

    int code = -1;
    const auto killed = DrillCluster::drill(
        cluster, {"kill-rank", "--group", "decode-2", "--deadline", "2m", "--junit", junit.string()}, code);
    EXPECT_EQ(code, 0) << killed.dump(2);
    DrillCluster::print(killed);
    DrillCluster::expect_recovered_by_heal(killed);
    EXPECT_NE(killed.value("target", "").find("decode-2 rank 0 on n7"), std::string::npos) << killed.dump(2);
    EXPECT_NE(read_text(junit).find("recovers: decode-2 rank 0 on n7"), std::string::npos)
        << read_text(junit);
    EXPECT_EQ(read_text(junit).find("<failure"), std::string::npos) << read_text(junit);

    const auto hung =
        DrillCluster::drill(cluster, {"hang-rank", "--group", "prefill-2", "--deadline", "2m"}, code);
    EXPECT_EQ(code, 0) << hung.dump(2);
    DrillCluster::print(hung);
    DrillCluster::expect_recovered_by_heal(hung);
    EXPECT_EQ(cluster.run({"status"}).exit_code, 0);
}

TEST(Drill, AKilledRouterAndAKilledMasterAreHealedAndWithoutHealNoOneRecovers) {
    SimCluster cluster("drillrouter", 118);
    DrillCluster::prepare(cluster);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);

    int code = -1;
    const auto router = DrillCluster::drill(cluster, {"kill-router", "--deadline", "2m"}, code);
    EXPECT_EQ(code, 0) << router.dump(2);
    DrillCluster::print(router);
    DrillCluster::expect_recovered_by_heal(router);
    EXPECT_GT(router.value("failed", 0), 0) << "no router, no request: " << router.dump(2);

    const auto master = DrillCluster::drill(cluster, {"kill-master", "--deadline", "2m"}, code);
    EXPECT_EQ(code, 0) << master.dump(2);
    DrillCluster::print(master);
    DrillCluster::expect_recovered_by_heal(master);

    // Only watching: a dead decode rank stays dead; the drill says a person is needed (exit 5).
    const auto watched = DrillCluster::drill(
        cluster, {"kill-rank", "--group", "decode", "--no-heal", "--deadline", "8s"}, code);
    EXPECT_EQ(code, 5) << watched.dump(2);
    DrillCluster::print(watched);
    EXPECT_EQ(watched.value("needed_person", false), true) << watched.dump(2);
    EXPECT_EQ(watched.value("recover_ms", 0LL), -1) << watched.dump(2);
    EXPECT_EQ(cluster.run({"heal"}).exit_code, 0) << "heal puts it right afterwards";
}

}  // namespace
}  // namespace pdctl::testing
