// smoke (with /health_generate), logs --since and logs --follow with the real pdctl on a simulated
// cluster (127.0.73.x).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <future>

#include "pdctl_harness.hpp"
#include "pdctl_process.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size()))
        ++count;
    return count;
}

// Appends like the unit's own writes do; rewriting the file would look like a restarted unit to --follow.
void append_to(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::app) << text;
}

TEST(LogsAndSmoke, SmokeChecksEveryGroupThenLogsSinceAndFollow) {
    SimCluster cluster("logsmoke", 73);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);

    // smoke: /health_generate on prefill and decode rank 0, then /generate through the router.
    const auto smoke = cluster.run({"smoke", "--prompt", "Hi there", "--max-tokens", "4"});
    EXPECT_EQ(smoke.exit_code, 0) << smoke.out << smoke.err;
    EXPECT_THAT(smoke.out, HasSubstr("✓ health_generate prefill rank0 on n1: 200 in "));
    EXPECT_THAT(smoke.out, HasSubstr("✓ health_generate decode rank0 on n5: 200 in "));
    EXPECT_THAT(smoke.out, HasSubstr("✓ smoke: POST http://127.0.73.5:31000/generate answered in "));
    const auto document = json::parse(cluster.run({"--json", "smoke", "--max-tokens", "3"}).out);
    EXPECT_EQ(document["ok"], true);
    ASSERT_EQ(document["checks"].size(), 3u);
    EXPECT_EQ(document["checks"][0]["check"], "health_generate");
    EXPECT_EQ(document["checks"][0]["role"], "prefill");
    EXPECT_EQ(document["checks"][0]["url"], "http://127.0.73.1:30000/health_generate");
    EXPECT_EQ(document["checks"][0]["status"], 200);
    EXPECT_TRUE(document["checks"][0]["latency_ms"].is_number());
    EXPECT_EQ(document["checks"][1]["role"], "decode");
    EXPECT_EQ(document["checks"][2]["check"], "generate");
    EXPECT_FALSE(document["checks"][2]["text"].get<std::string>().empty());
    EXPECT_EQ(document["text"], document["checks"][2]["text"])
        << "the /generate result stays at the top level";

    // logs --since: every rank, prefixed, from the moment on; nothing from the future.
    const auto recent = cluster.run({"logs", "prefill", "--since", "1h"});
    EXPECT_EQ(recent.exit_code, 0) << recent.err;
    for (int rank = 0; rank < 4; ++rank) {
        const std::string prefix = "[n" + std::to_string(rank + 1) + " rank" + std::to_string(rank) + "] ";
        EXPECT_THAT(recent.out, HasSubstr(prefix + "[")) << recent.out;
    }
    EXPECT_THAT(recent.out, HasSubstr("Load weight begin"));
    EXPECT_EQ(cluster.run({"logs", "prefill", "--since", "2099-01-01 00:00"}).out, "");
    const auto log0 = cluster.state_dir() / "n1" / "pd-logsmoke-prefill-0.log";
    append_to(log0, "[2099-01-01 00:00:05] from the future\n  with a continuation line\n");
    EXPECT_EQ(cluster.run({"logs", "prefill", "--rank", "0", "--since", "2099-01-01T00:00"}).out,
              "[2099-01-01 00:00:05] from the future\n  with a continuation line\n");
    const auto tailed = cluster.run({"logs", "prefill", "--since", "1h", "--tail", "2"});
    EXPECT_EQ(count_of(tailed.out, "\n"), 8u) << tailed.out;
    const auto bad = cluster.run({"logs", "prefill", "--since", "yesterday"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_THAT(bad.err, HasSubstr("--since: cannot read 'yesterday'"));

    // logs --follow: lines appended to a rank's log show up while it runs, prefixed; Ctrl-C ends it.
    const auto output = cluster.config().parent_path() / "follow.out";
    auto follow = run_pdctl_to_file(cluster, output, {"logs", "prefill", "--follow", "--tail", "1"});
    ASSERT_TRUE(eventually([&] {
        return std::filesystem::exists(output) && read_text(output).find("[n4 rank3] ") != std::string::npos;
    })) << "the first read never finished: "
        << (std::filesystem::exists(output) ? read_text(output) : "");
    const auto log1 = cluster.state_dir() / "n2" / "pd-logsmoke-prefill-1.log";
    append_to(log1, "MARKER one\nMARKER two\n");
    EXPECT_TRUE(
        eventually([&] { return read_text(output).find("[n2 rank1] MARKER two\n") != std::string::npos; },
                   std::chrono::seconds(10)))
        << read_text(output);
    EXPECT_THAT(read_text(output), HasSubstr("[n2 rank1] MARKER one\n[n2 rank1] MARKER two\n"));
    const int pid = find_pdctl_pid(cluster.config().string(), "logs");
    ASSERT_NE(pid, 0);
    ::kill(pid, SIGINT);
    ASSERT_EQ(follow.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "Ctrl-C ends a follow";
    EXPECT_EQ(follow.get().exit_code, 0);

    // Nothing running: every check fails, and smoke says so with exit 9.
    ASSERT_EQ(cluster.run({"stop"}).exit_code, 0);
    const auto down = cluster.run({"smoke", "--timeout", "2"});
    EXPECT_EQ(down.exit_code, 9);
    EXPECT_THAT(down.out, HasSubstr("✗ health_generate prefill rank0 on n1"));
    EXPECT_THAT(down.out, HasSubstr("✗ smoke: POST"));
}

// A unit that crashed, then `stop`: its log is kept on its node (state_dir/<cluster>/<node>/previous/),
// `logs --previous` shows it, and the next stop or replacement rotates it (.1, .2).
TEST(LogsAndSmoke, ACrashedUnitsLogSurvivesStopAndPreviousShowsIt) {
    SimCluster cluster("prevlogs", 103);
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    const auto unit = cluster.unit("prefill", 2);
    const auto pids = running_unit_pids(cluster);
    ASSERT_EQ(pids.count(unit), 1u);
    const auto node_dir = cluster.state_dir() / "n3";
    append_to(node_dir / (unit + ".log"), "marker: the last words of rank 2\n");
    ASSERT_EQ(::kill(-pids.at(unit), SIGKILL), 0);  // the rank's whole process group: a crash
    ASSERT_TRUE(
        eventually([&] { return running_unit_pids(cluster).count(unit) == 0; }, std::chrono::seconds(20)));

    const auto stop = cluster.run({"stop"});
    ASSERT_EQ(stop.exit_code, 0) << stop.out << stop.err;
    EXPECT_FALSE(std::filesystem::exists(node_dir / (unit + ".log"))) << "moved, not copied";
    const auto previous = cluster.run({"logs", "prefill", "--rank", "2", "--previous"});
    EXPECT_EQ(previous.exit_code, 0) << previous.err;
    EXPECT_THAT(previous.out, HasSubstr("marker: the last words of rank 2"));
    const auto current = cluster.run({"logs", "prefill", "--rank", "2"});
    EXPECT_THAT(current.out, HasSubstr("`--previous` shows the log it left")) << current.out;
    // Every unit of the stopped cluster left its log.
    const auto all = cluster.run({"logs", "decode", "--previous", "--tail", "1"});
    EXPECT_EQ(count_of(all.out, "[n"), 4u) << all.out;

    // The next run's log takes its place; the crashed run's becomes .1.
    ASSERT_EQ(cluster.run({"start"}).exit_code, 0);
    ASSERT_EQ(cluster.run({"stop"}).exit_code, 0);
    EXPECT_THAT(read_text(node_dir / "previous" / (unit + ".log.1")),
                HasSubstr("marker: the last words of rank 2"));
    EXPECT_THAT(cluster.run({"logs", "prefill", "--rank", "2", "--previous"}).out,
                ::testing::Not(HasSubstr("marker: the last words")));

    // The incident bundle holds every unit's kept log, the plan, status and the journal.
    const auto bundle_path = cluster.config().parent_path() / "incident.tar.gz";
    const auto bundle = cluster.run({"logs", "--bundle", bundle_path.string()});
    EXPECT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
    EXPECT_THAT(bundle.out, HasSubstr("bundle " + bundle_path.string() + ": "));
    exec::Command list;
    list.argv = {"tar", "-tzf", bundle_path.string()};
    list.timeout = std::chrono::seconds(30);
    const auto listing = exec::LocalExecutor().run({"local", "127.0.0.1", {}, {}, {}}, list).out;
    for (const std::string& part :
         std::vector<std::string>{"/MANIFEST.txt", "/plan.txt", "/status.json", "/journal.jsonl",
                                  "/logs/n3/previous/" + unit + ".log",
                                  "/logs/n1/previous/" + cluster.unit("mooncake-master", 0) + ".log",
                                  "/logs/n5/previous/" + cluster.unit("router", 0) + ".log"})
        EXPECT_THAT(listing, HasSubstr(part));
    EXPECT_EQ(count_of(listing, "/previous/pd-"), 10u) << "the kept log of each of the 10 units:\n"
                                                       << listing;

    const auto both = cluster.run({"logs", "prefill", "--previous", "--follow"});
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_THAT(both.err, HasSubstr("--follow and --previous"));
}

}  // namespace
}  // namespace pdctl::testing
