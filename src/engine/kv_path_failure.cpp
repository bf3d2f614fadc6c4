#include "kv_path_failure.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pdctl/health/transfer_errors.hpp"
#include "pdctl/runtime/failure_hint.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::engine {
namespace {

constexpr std::size_t kLinesPerUnit = 3;

// The last lines of `unit`'s log that name a KV path failure.
std::vector<std::string> kv_path_lines(RunContext& run, const plan::Unit& unit) {
    auto lines = run.log_lines(unit);
    std::erase_if(lines, [](const std::string& line) { return !health::names_kv_path_failure(line); });
    if (lines.size() > kLinesPerUnit) lines.erase(lines.begin(), lines.end() - kLinesPerUnit);
    return lines;
}

}  // namespace

bool kv_path_failure_limit_reached(WaitingStage& waiting, const GateAnswer& probe, int limit) {
    if (!probe.kv_path_failure) {
        waiting.kv_path_failure.clear();
        waiting.kv_path_failures_in_a_row = 0;
        return false;
    }
    auto same = health::without_request_ids(probe.answer);
    waiting.kv_path_failures_in_a_row =
        same == waiting.kv_path_failure ? waiting.kv_path_failures_in_a_row + 1 : 1;
    waiting.kv_path_failure = std::move(same);
    return limit > 0 && waiting.kv_path_failures_in_a_row >= limit;
}

StageResult kv_path_failure_result(RunContext& run, const WaitingStage& waiting, const GateAnswer& probe) {
    const auto& stage = waiting.stage;
    const auto& rank0 = stage.units.front();
    StageResult result;
    result.code = ExitCode::kGateTimeout;
    result.failure = {stage.role, rank0.node, rank0.address, rank0.rank, "", {}, "", {}};
    result.failure.reason = fmt::format(
        "gate {}: {} requests in a row failed the same way on the KV path, {} after the launch (deadline "
        "{}, which would not change it): {}",
        stage.gate.why, waiting.kv_path_failures_in_a_row,
        util::format_elapsed(std::chrono::duration_cast<Duration>(run.clock.now() - waiting.began)),
        util::format_elapsed(stage.gate.deadline), probe.answer);
    // The router's log and each worker's rank 0's, read at once: over SSH each is a round trip.
    std::vector<const plan::Unit*> workers;
    std::vector<std::string> labels;
    if (stage.router) {
        for (const auto& worker : stage.router->workers) {
            const auto* worker_stage = run.plan.find_stage(worker.stage);
            if (worker_stage == nullptr || worker_stage->units.empty()) continue;
            const auto& unit = worker_stage->units.front();
            workers.push_back(&unit);
            labels.push_back(fmt::format("{} rank {} on {}", worker.stage, unit.rank, unit.node));
        }
    }
    std::vector<std::vector<std::string>> lines(workers.size());
    util::for_each_parallel(workers.size() + 1, util::kEngineFanout, [&](std::size_t i) {
        if (i == workers.size())
            result.failure.log_tail = run.log_tail(rank0);
        else
            lines[i] = kv_path_lines(run, *workers[i]);
    });
    std::vector<std::string> explaining;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        if (lines[i].empty()) continue;
        explaining.insert(explaining.end(), lines[i].begin(), lines[i].end());
        result.failure.related_logs.push_back({labels[i], std::move(lines[i])});
    }
    result.failure.hint = runtime::hint_from_log(explaining);
    if (result.failure.hint.empty()) result.failure.hint = runtime::hint_from_log(result.failure.log_tail);
    return result;
}

}  // namespace pdctl::engine
