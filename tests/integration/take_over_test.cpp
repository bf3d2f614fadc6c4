// `pdctl start --take-over` on the simulated cluster: the deployment pdctl replaces is a master and a
// router started by hand, as the old script starts them — the same programs on the same addresses and
// ports, with no pdctl record. The dry run names them and touches nothing; the take-over stops them,
// journals each, and starts pdctl's own units, through which a request then passes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "pdctl_harness.hpp"
#include "pdctl_process.hpp"
#include "unit/support/build_paths.hpp"

namespace pdctl::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// The program of `role` rank 0 from `pdctl plan --json`, with pdsim by its path.
std::vector<std::string> program_of(const json& plan, const std::string& role) {
    for (const auto& stage : plan["stages"])
        if (stage["role"] == role) {
            auto argv = stage["units"][0]["program"].get<std::vector<std::string>>();
            argv[0] = pdctl::testing::pdsim_binary();
            return argv;
        }
    return {};
}

// Starts `argv` in its own session, as a deployment script would, and returns its pid.
int start_by_hand(const std::vector<std::string>& argv) {
    exec::Command command;
    command.argv = {"sh", "-c", "setsid \"$@\" > /dev/null 2>&1 < /dev/null & echo $!", "sh"};
    command.argv.insert(command.argv.end(), argv.begin(), argv.end());
    command.timeout = std::chrono::seconds(10);
    const auto result = exec::LocalExecutor().run({"local", "127.0.0.1", {}, {}, {}}, command);
    return std::atoi(result.out.c_str());
}

bool alive(int pid) {
    return pid > 0 && ::kill(pid, 0) == 0 && parent_pid(std::to_string(pid)) != -1;
}

TEST(TakeOver, TheOldDeploymentsProcessesAreNamedThenStoppedAndPdctlsOwnStart) {
    SimCluster cluster("takeover", 105);
    const auto plan = json::parse(cluster.run({"--json", "plan"}).out);
    const int master = start_by_hand(program_of(plan, "mooncake-master"));
    const int router = start_by_hand(program_of(plan, "router"));
    ASSERT_GT(master, 0);
    ASSERT_GT(router, 0);
    struct Reap {
        int pids[2];
        ~Reap() {
            for (int pid : pids)
                if (pid > 0) ::kill(pid, SIGKILL);
        }
    } reap{{master, router}};
    ASSERT_TRUE(eventually(
        [&] {
            const auto dry = cluster.run({"--json", "start", "--take-over", "--dry-run"});
            const auto doc = json::parse(dry.out, nullptr, false);
            return doc.is_object() && doc["holders"].size() == 2;
        },
        std::chrono::seconds(20)))
        << "the two hand-started programs never showed as holders";

    const auto dry = cluster.run({"start", "--take-over", "--dry-run"});
    EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
    EXPECT_THAT(dry.out, HasSubstr("process " + std::to_string(master) + " pdsim"));
    EXPECT_THAT(dry.out, HasSubstr("port 50051 (mooncake-master rank 0 RPC port)"));
    EXPECT_THAT(dry.out, HasSubstr("process " + std::to_string(router) + " pdsim"));
    EXPECT_THAT(dry.out, HasSubstr("holds port 31000 (router rank 0 --port)"));
    EXPECT_THAT(dry.out, HasSubstr("dry run: nothing was stopped or started"));
    EXPECT_TRUE(alive(master) && alive(router)) << "a dry run touches nothing";
    EXPECT_TRUE(cluster.live_pdsim_processes().size() == 2u) << "and starts nothing";

    const auto start = cluster.run({"start", "--take-over"});
    EXPECT_EQ(start.exit_code, 0) << start.out << start.err;
    EXPECT_THAT(start.out,
                HasSubstr("take-over: stopped process " + std::to_string(master) + " pdsim on n1"));
    EXPECT_THAT(start.out,
                HasSubstr("take-over: stopped process " + std::to_string(router) + " pdsim on n5"));
    EXPECT_TRUE(eventually([&] { return !alive(master) && !alive(router); }, std::chrono::seconds(10)));
    EXPECT_EQ(cluster.run({"smoke"}).exit_code, 0) << "pdctl's own units serve";
    EXPECT_THAT(read_text(cluster.state_dir() / "journal.jsonl"), HasSubstr("take-over: stopped process"));

    // Once pdctl owns everything, there is nothing left to take over.
    const auto again = cluster.run({"start", "--take-over", "--dry-run"});
    EXPECT_THAT(again.out, HasSubstr("take-over: nothing on the 8 nodes of the plan holds"));

    const auto alone = cluster.run({"start", "--dry-run"});
    EXPECT_EQ(alone.exit_code, 2);
    EXPECT_THAT(alone.err, HasSubstr("--dry-run shows what --take-over would stop"));
}

}  // namespace
}  // namespace pdctl::testing
