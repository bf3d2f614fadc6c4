// restart --rolling on the simulated cluster: a stream of /generate requests through the router keeps
// succeeding, every one of them, while the decode groups and then the prefill groups restart one at a
// time (SMG's worker API takes each out and back); MiniLB is refused with the reason, or, allowed to
// restart, its downtime is reported.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "generate_stream.hpp"
#include "pdctl_harness.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;

// Two 2-node groups of TP 16 for prefill and for decode on the local profile's 8 nodes, and the router
// switched to `impl` with fast health checks and a short drain.
void rewrite_to_two_groups_each(SimCluster& cluster, const std::string& impl) {
    auto text = read_text(cluster.config());
    testing::two_groups_each(text, impl);
    write_text(cluster.config(), text);
}

TEST(Rolling, RequestsThroughSmgNeverFailWhileDecodeThenPrefillGroupsRestart) {
    SimCluster cluster("rolling", 83);
    rewrite_to_two_groups_each(cluster, "smg");
    const auto start = cluster.run({"start"});
    ASSERT_EQ(start.exit_code, 0) << start.out << start.err;
    const auto before = running_unit_pids(cluster);
    ASSERT_EQ(before.size(), 10u) << "master, 2x2 prefill, 2x2 decode, router";

    const auto plan = cluster.run({"plan", "restart", "--role", "decode", "--rolling"});
    ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
    EXPECT_NE(plan.out.find("rolling restart through router (smg at http://127.0.83.5:31000)"),
              std::string::npos)
        << plan.out;
    EXPECT_NE(plan.out.find("1. take decode out of router and let its requests finish"), std::string::npos)
        << plan.out;

    GenerateStream stream(cluster.address(5), 31000);
    const auto decode = cluster.run({"restart", "--role", "decode", "--rolling", "--drain-grace", "1s"});
    const int during_decode = stream.sent();
    ASSERT_EQ(decode.exit_code, 0) << decode.out << decode.err;
    EXPECT_NE(decode.out.find("decode-2 is back in router and ready"), std::string::npos) << decode.out;
    const auto after_decode = running_unit_pids(cluster);
    for (const auto& [unit, pid] : before) {
        ASSERT_EQ(after_decode.count(unit), 1u) << unit << " is not running";
        if (unit.find("-decode") != std::string::npos)
            EXPECT_NE(after_decode.at(unit), pid) << unit << " was not restarted";
        else
            EXPECT_EQ(after_decode.at(unit), pid) << unit << " was touched by a rolling decode restart";
    }

    // A prefill restart takes every decode along (sglang #16903), one at a time, and the restarted
    // prefill rejoins the router only once they reconnected.
    const auto prefill = cluster.run({"restart", "--role", "prefill", "--rolling", "--drain-grace", "1s"});
    stream.stop();
    ASSERT_EQ(prefill.exit_code, 0) << prefill.out << prefill.err;
    const auto after_prefill = running_unit_pids(cluster);
    for (const auto& unit : {cluster.unit("mooncake-master", 0), cluster.unit("router", 0)})
        EXPECT_EQ(after_prefill.at(unit), before.at(unit)) << unit << " was touched";
    EXPECT_NE(after_prefill.at(cluster.unit("prefill-2", 1)), before.at(cluster.unit("prefill-2", 1)));
    EXPECT_NE(after_prefill.at(cluster.unit("decode", 0)), after_decode.at(cluster.unit("decode", 0)));

    EXPECT_GT(during_decode, 20) << "the stream ran during the decode roll";
    EXPECT_GT(stream.sent(), during_decode + 20) << "the stream ran during the prefill roll";
    std::printf(
        "[ timing ] rolling restart, 2 decode groups then 2 prefill groups: %d requests, %zu failed\n",
        stream.sent(), stream.failures().size());
    EXPECT_TRUE(stream.failures().empty())
        << stream.failures().size() << " of " << stream.sent()
        << " requests failed:" << first_failures(stream.failures()) << "\n--- decode roll:\n"
        << decode.out << "\n--- prefill roll:\n"
        << prefill.out;

    // A group left out of the router (a roll that failed or was interrupted between its steps):
    // status says so, and start puts it back by restarting the router.
    httplib::Client router(cluster.address(5), 31000);
    const std::string decode2 = "http://" + cluster.address(7) + ":30000";
    const std::string path = "/workers/" + httplib::detail::encode_query_param(decode2);
    const auto listed = router.Get(path);
    ASSERT_TRUE(listed && listed->status == 200);
    ASSERT_TRUE(router.Delete("/workers/" + json::parse(listed->body)["id"].get<std::string>()));
    const auto gone = [&] {
        const auto answer = router.Get(path);
        return answer && answer->status == 404;
    };
    for (int i = 0; i < 100 && !gone(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(gone()) << "the router still lists " << decode2 << " 5 s after its removal";
    const auto degraded = cluster.run({"status"});
    EXPECT_EQ(degraded.exit_code, 7) << degraded.out;
    EXPECT_NE(degraded.out.find("missing from /workers: " + decode2), std::string::npos) << degraded.out;
    const auto converged = cluster.run({"start"});
    EXPECT_EQ(converged.exit_code, 0) << converged.out << converged.err;
    EXPECT_EQ(cluster.run({"status"}).exit_code, 0);
}

TEST(Rolling, MiniLbIsRefusedWithTheReasonOrRestartedWithItsDowntimeReported) {
    SimCluster cluster("rollmini", 84);
    rewrite_to_two_groups_each(cluster, "minilb");
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto before = running_unit_pids(cluster);

    const auto refused = cluster.run({"restart", "--role", "decode", "--rolling"});
    EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("router is MiniLB, whose worker list is fixed at launch"), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("--allow-router-restart"), std::string::npos) << refused.err;
    EXPECT_EQ(running_unit_pids(cluster), before) << "a refused rolling restart touched something";

    const auto allowed =
        cluster.run({"--json", "restart", "--role", "decode", "--rolling", "--allow-router-restart"});
    ASSERT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
    bool downtime = false;
    for (const auto& event : allowed.events())
        if (event.value("event", "") == "run_end")
            downtime = event.value("message", "").find("router was down for ") != std::string::npos;
    EXPECT_TRUE(downtime) << allowed.out;
    const auto after = running_unit_pids(cluster);
    EXPECT_EQ(after.at(cluster.unit("prefill", 0)), before.at(cluster.unit("prefill", 0)));
    EXPECT_NE(after.at(cluster.unit("router", 0)), before.at(cluster.unit("router", 0)));
    EXPECT_EQ(cluster.run({"smoke"}).exit_code, 0);
}

}  // namespace
}  // namespace pdctl::testing
