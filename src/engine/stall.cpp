#include "pdctl/engine/stall.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/durations.hpp"

namespace pdctl::engine {
namespace {

using runtime::Phase;

// How far a rank got in its own start-up. A rank >= 1 ends at kJoined (its dummy /health is up) and a
// rank 0 at kReady: both are done, so a rank >= 1 that joined is never "behind" a rank 0 that is
// still warming up. A failed rank is not judged here (liveness reports it).
// A rank that logged the end of a phase is past every rank still in it.
int position(const RankActivity& rank) {
    if (rank.phase == Phase::kReady || (rank.rank > 0 && rank.phase == Phase::kJoined))
        return 2 * static_cast<int>(Phase::kReady);
    return 2 * static_cast<int>(rank.phase) + (rank.phase_done ? 1 : 0);
}

bool judged(const RankActivity& rank) {
    return rank.phase != Phase::kFailed;
}

// "while loading weights", "after allocating KV cache" once it logged the phase's end, or for the
// phases that are a state rather than work, "after joining".
std::string where_stuck(Phase phase, bool done) {
    if (done) return "after " + std::string(runtime::phase_label(phase));
    switch (phase) {
        case Phase::kJoined:
            return "after joining";
        case Phase::kHttpUp:
            return "after its HTTP port opened";
        case Phase::kReady:
            return "after start-up";
        default:
            return "while " + std::string(runtime::phase_label(phase));
    }
}

}  // namespace

std::string_view verdict_id(RankVerdict verdict) {
    switch (verdict) {
        case RankVerdict::kMoving:
            return "moving";
        case RankVerdict::kWaiting:
            return "waiting";
        case RankVerdict::kStalled:
            return "stalled";
    }
    return "moving";
}

std::vector<RankVerdict> judge_ranks(const std::vector<RankActivity>& ranks,
                                     std::chrono::milliseconds threshold, bool serving) {
    std::vector<RankVerdict> verdicts(ranks.size(), RankVerdict::kMoving);
    if (serving || threshold.count() <= 0) return verdicts;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const auto& rank = ranks[i];
        if (!judged(rank) || rank.quiet <= threshold) continue;
        bool someone_ahead = false, someone_behind = false;
        for (std::size_t j = 0; j < ranks.size(); ++j) {
            if (j == i || !judged(ranks[j])) continue;
            someone_ahead = someone_ahead || position(ranks[j]) > position(rank);
            someone_behind = someone_behind || position(ranks[j]) < position(rank);
        }
        // Behind another member: the others moved past it and wait. Ahead of one: it waits for that
        // one. Level with every member (or alone): nobody to blame but itself.
        verdicts[i] = someone_ahead    ? RankVerdict::kStalled
                      : someone_behind ? RankVerdict::kWaiting
                                       : RankVerdict::kStalled;
    }
    return verdicts;
}

std::string describe_stall(const std::vector<RankActivity>& ranks, std::size_t index) {
    const auto& rank = ranks.at(index);
    std::vector<std::string> ahead;
    for (std::size_t j = 0; j < ranks.size(); ++j)
        if (j != index && judged(ranks[j]) && position(ranks[j]) > position(rank))
            ahead.push_back(std::to_string(ranks[j].rank));
    std::string text =
        fmt::format("stalled {}: its log has been quiet for {}", where_stuck(rank.phase, rank.phase_done),
                    util::format_elapsed(rank.quiet));
    if (!ahead.empty())
        text +=
            fmt::format(" while rank{} {} moved past it", ahead.size() > 1 ? "s" : "", fmt::join(ahead, ","));
    return text;
}

}  // namespace pdctl::engine
