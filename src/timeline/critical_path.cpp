#include "pdctl/timeline/critical_path.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/util/durations.hpp"

namespace pdctl::timeline {
namespace {

// One progress poll: ranks that finished within it of each other finished together, as far as the
// journal can tell.
constexpr long long kPollMs = 2000;

// How far behind its group the unit fell: the most, over the phases its peers entered too, by which
// it entered one after the first of them. A group meets at collectives (the free-memory all-reduce
// before the KV cache, every forward pass), so a straggler shows as the rank that entered a phase late
// while the others waited in the one before.
long long lateness(const StageTimeline& stage, const UnitTimeline& unit) {
    long long most = 0;
    for (const auto& span : unit.phases) {
        if (span.phase == "starting") continue;
        long long first = span.begin_ms;
        for (const auto& peer : stage.units)
            for (const auto& other : peer.phases)
                if (other.phase == span.phase) first = std::min(first, other.begin_ms);
        most = std::max(most, span.begin_ms - first);
    }
    return most;
}

UnitTimeline* critical_unit(StageTimeline& stage) {
    if (stage.units.empty()) return nullptr;
    if (!stage.failed_node.empty())
        for (auto& unit : stage.units)
            if (unit.node == stage.failed_node && unit.rank == stage.failed_rank) return &unit;
    // The straggler, if one fell behind by more than a poll and further than any other; else rank 0,
    // whose HTTP port (the gate) opens last.
    UnitTimeline* latest = nullptr;
    long long most = 0, runner_up = 0;
    for (auto& unit : stage.units) {
        const long long late = lateness(stage, unit);
        if (late > most) {
            runner_up = most;
            most = late;
            latest = &unit;
        } else {
            runner_up = std::max(runner_up, late);
        }
    }
    if (latest && most > kPollMs && most > runner_up + kPollMs) return latest;
    for (auto& unit : stage.units)
        if (unit.rank == 0) return &unit;
    return &stage.units.front();
}

}  // namespace

void mark_critical_path(RunTimeline& run) {
    for (auto& stage : run.stages) {
        stage.critical = false;
        for (auto& unit : stage.units) unit.critical = false;
    }
    if (run.stages.empty()) return;
    std::size_t current = 0;
    for (std::size_t i = 1; i < run.stages.size(); ++i)
        if (run.stages[i].end_ms >= run.stages[current].end_ms) current = i;
    while (true) {
        auto& stage = run.stages[current];
        stage.critical = true;
        if (auto* unit = critical_unit(stage)) unit->critical = true;
        // The latest earlier stage that ended by the time this one began released it; with a narrow
        // edge (decode after prefill's bootstrap server) none had ended: the latest to begin.
        std::optional<std::size_t> before;
        for (std::size_t i = 0; i < current; ++i) {
            const auto& earlier = run.stages[i];
            if (earlier.end_ms > stage.begin_ms + kPollMs / 2) continue;
            if (!before || earlier.end_ms >= run.stages[*before].end_ms) before = i;
        }
        if (!before)
            for (std::size_t i = 0; i < current; ++i)
                if (!before || run.stages[i].begin_ms >= run.stages[*before].begin_ms) before = i;
        if (!before) break;
        current = *before;
    }
}

std::string describe_critical_path(const RunTimeline& run) {
    std::string out;
    for (const auto& stage : run.stages) {
        if (!stage.critical) continue;
        std::string who = stage.role;
        for (const auto& unit : stage.units)
            if (unit.critical && stage.units.size() > 1)
                who += fmt::format(" {} rank {}", unit.node, unit.rank);
        out += (out.empty() ? "" : " → ") + who + " " +
               util::format_elapsed(std::chrono::milliseconds(stage.end_ms - stage.begin_ms));
    }
    return out;
}

}  // namespace pdctl::timeline
