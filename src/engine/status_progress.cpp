#include "status_progress.hpp"

#include <algorithm>

namespace pdctl::engine {

std::optional<runtime::LogActivity> read_log_activity(const plan::Plan& plan, const plan::Unit& unit,
                                                      exec::Executor& executor) {
    const auto node = std::find_if(plan.nodes.begin(), plan.nodes.end(), [&](const config::Node& candidate) {
        return candidate.name == unit.node;
    });
    if (node == plan.nodes.end()) return std::nullopt;
    auto command = unit.log_activity;
    command.timeout = std::min(command.timeout, std::chrono::milliseconds(std::chrono::seconds(10)));
    const auto answer = executor.run(*node, command);
    if (!answer.ok()) return std::nullopt;
    auto activity = unit.runtime->parse_log_activity(answer.out);
    if (activity.node_now_epoch == 0) return std::nullopt;
    return activity;
}

void judge_role_progress(const plan::Stage& stage,
                         const std::vector<std::optional<runtime::LogActivity>>& activity, RoleStatus& role) {
    std::vector<RankActivity> ranks;
    std::vector<UnitStatus*> judged;
    for (std::size_t i = 0; i < role.units.size() && i < activity.size(); ++i) {
        auto& unit = role.units[i];
        if (!activity[i] || unit.state != "running") continue;
        const auto seen = runtime::classify(activity[i]->lines, stage.kind);
        auto phase = seen.phase;
        // Every SGLang log starts with its server_args line: a full tail without any recognised line
        // has scrolled past the start-up.
        if (phase == runtime::Phase::kStarting && activity[i]->lines.size() >= kStatusTailLines)
            phase = unit.rank == 0 ? runtime::Phase::kReady : runtime::Phase::kJoined;
        unit.phase = role.ready ? "serving" : std::string(runtime::phase_id(phase));
        unit.log_quiet_seconds = activity[i]->quiet_seconds();
        // An unknown quiet time (no log yet) is no evidence of a stall.
        const auto quiet = std::chrono::seconds(std::max(0LL, unit.log_quiet_seconds));
        ranks.push_back({unit.rank, unit.node, phase, quiet, seen.phase_done && phase == seen.phase});
        judged.push_back(&unit);
    }
    const auto verdicts = judge_ranks(ranks, stage.stall_after, role.ready);
    for (std::size_t i = 0; i < judged.size(); ++i) {
        judged[i]->progress = std::string(verdict_id(verdicts[i]));
        if (verdicts[i] == RankVerdict::kStalled) judged[i]->stall = describe_stall(ranks, i);
    }
}

}  // namespace pdctl::engine
