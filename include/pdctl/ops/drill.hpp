#pragma once
// `pdctl drill FAULT`: break a deployment on purpose under load and measure what follows (docs/drills.md):
// how many requests failed and when, how long until status saw the fault, how long until every gate
// passed again, and whether that took a person. The load is bench's generator (load/load_runner.hpp)
// through the router; recovery is `heal` passes (ops/heal.hpp), unless the drill is told to watch
// what recovers by itself. Only a cluster file that says `drills: allowed` can be drilled.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/load/load_runner.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

enum class DrillFault {
    kKillRank,    // SIGKILL one rank of a group
    kHangRank,    // SIGSTOP one rank: it runs and answers nothing
    kKillRouter,  // SIGKILL the router
    kKillMaster,  // SIGKILL the Mooncake master
    kPartition,   // the node's link down for a while, then up (SSH nodes)
};

std::optional<DrillFault> parse_drill_fault(const std::string& text);  // kill-rank, hang-rank, ...
std::string to_string(DrillFault fault);
inline constexpr const char* kDrillFaults = "kill-rank, hang-rank, kill-router, kill-master, partition";

struct DrillRequest {
    DrillFault fault = DrillFault::kKillRank;
    std::string group;  // kill-rank, hang-rank: the group (default: the last decode group)
    int rank = 0;
    std::string node;  // partition
    std::chrono::milliseconds partition_for{std::chrono::seconds(20)};
    std::chrono::milliseconds warmup{std::chrono::seconds(3)};    // load before the fault
    std::chrono::milliseconds deadline{std::chrono::minutes(5)};  // to recover, from the fault
    std::chrono::milliseconds poll_interval{std::chrono::milliseconds(250)};
    bool heal = true;  // false: only watch (what recovers without pdctl?)
    int concurrency = 4;
    int input_tokens = 64;
    int output_tokens = 8;
};

struct DrillResult {
    std::string fault;
    std::string target;  // "decode-2 rank 0 on n7 (pid 4242)"
    std::string router;  // the URL the load went through
    int sent = 0;
    int failed = 0;
    std::vector<std::pair<std::string, int>> errors;  // text -> count, most frequent first
    // When the failed requests ended, in seconds from the fault (-1 without failures).
    double first_failure_s = -1;
    double last_failure_s = -1;
    long long detect_ms = -1;               // fault -> status no longer all ready (-1: never)
    long long recover_ms = -1;              // fault -> status all ready again (-1: not within the deadline)
    std::string recovered_by;               // "heal", "itself", "" (not recovered)
    std::vector<std::string> heal_actions;  // what the heal passes did
    int heal_passes = 0;
    std::vector<std::string> notes;
    ExitCode code = ExitCode::kOk;  // kGateTimeout: not recovered within the deadline
    double elapsed_s = 0;           // the whole drill, on the deployment's clock (JUnit's time)

    bool needed_person() const { return recover_ms < 0; }
};

// Throws Failure: kUsage for a cluster without `drills: allowed`, an unknown group/rank/node, a
// deployment without a router; kDegraded when it is not all ready before the fault; kCommandFailed
// when the fault could not be injected.
// What sends the drill's load through the router and returns each request's record: load::run_load
// unless a test stands in for it. Runs on a thread of its own until spec.cancelled() says stop.
using DrillLoad = std::function<load::LoadResult(const load::LoadSpec&)>;

DrillResult run_drill(const Deployment& deployment, const DrillRequest& request, engine::Reporter& screen,
                      const DrillLoad& send_load = {});

}  // namespace pdctl::ops
