#include "pdctl/engine/progress_watch.hpp"

#include <algorithm>
#include <map>

#include "pdctl/engine/observer.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::engine {
namespace {

// A stuck node must not hold the wait loop (and with it the liveness check) for long.
constexpr Duration kMaxLogsTimeout{std::chrono::seconds(10)};

Duration as_duration(TimePoint::duration d) {
    return std::chrono::duration_cast<Duration>(d);
}

// Log lines quoted in events stay short: `server_args=ServerArgs(...)` alone runs to kilobytes.
std::string excerpt(const std::string& line) {
    constexpr std::size_t kMax = 300;
    return line.size() > kMax ? line.substr(0, kMax) + "..." : line;
}

}  // namespace

std::vector<std::string> split_log_lines(const std::string& text, std::size_t keep) {
    auto lines = runtime::split_lines(text);
    if (lines.size() > keep) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(keep));
    return lines;
}

ProgressWatch::ProgressWatch(const plan::Plan& plan, const plan::Stage& stage, TimePoint began,
                             int tail_lines)
    : plan_(plan), stage_(stage), began_(began), tracked_(stage.units.size()) {
    for (const auto& unit : stage.units) {
        // The runtime's own logs command, asked for a longer tail than the plan's failure excerpt:
        // phases are told apart by lines a few dozen back.
        auto command = unit.runtime->logs(unit.name, tail_lines);
        command.timeout = std::min(command.timeout, kMaxLogsTimeout);
        commands_.push_back(std::move(command));
    }
    for (auto& tracked : tracked_) {
        tracked.last_change = began;  // an empty log has not moved since launch
        tracked.last_read = began;
    }
}

std::optional<std::vector<std::string>> ProgressWatch::read_tail(exec::Executor& executor,
                                                                 std::size_t index) const {
    const auto& unit = stage_.units[index];
    const config::Node* node = nullptr;
    for (const auto& candidate : plan_.nodes)
        if (candidate.name == unit.node) node = &candidate;
    if (!node) return std::nullopt;
    const auto answer = executor.run(*node, commands_[index]);
    if (!answer.ok()) return std::nullopt;
    return split_log_lines(answer.out + answer.err, static_cast<std::size_t>(-1));
}

void ProgressWatch::poll(exec::Executor& executor, TimePoint now, Reporter& reporter) {
    // One thread per node; a node's units (usually one per stage) are read one after the other.
    std::map<std::string, std::vector<std::size_t>> by_node;
    for (std::size_t i = 0; i < stage_.units.size(); ++i) by_node[stage_.units[i].node].push_back(i);
    std::vector<const std::vector<std::size_t>*> groups;
    for (const auto& [node, indices] : by_node) groups.push_back(&indices);

    std::vector<std::optional<std::vector<std::string>>> tails(stage_.units.size());
    util::for_each_parallel(groups.size(), util::kEngineFanout, [&](std::size_t g) {
        for (const auto index : *groups[g]) tails[index] = read_tail(executor, index);
    });
    std::vector<std::optional<UnitProgress>> progress(stage_.units.size());
    for (std::size_t i = 0; i < stage_.units.size(); ++i)
        if (tails[i]) progress[i] = observe(i, *tails[i], now);
    judge(now);
    // Reported from this thread, in rank order: reporters see a stable sequence.
    for (std::size_t i = 0; i < stage_.units.size(); ++i) {
        if (!progress[i]) continue;
        // A unit not read this round reports its verdict with its next read.
        auto& tracked = tracked_[i];
        progress[i]->verdict = tracked.verdict;
        progress[i]->verdict_changed = tracked.verdict_changed;
        progress[i]->stall = tracked.stall;
        tracked.verdict_changed = false;
        reporter.unit_progress(stage_, stage_.units[i], *progress[i]);
    }
}

void ProgressWatch::judge(TimePoint now) {
    if (stage_.stall_after.count() == 0) return;
    std::vector<RankActivity> ranks;
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < tracked_.size(); ++i) {
        if (!tracked_[i].seen) continue;
        const auto& unit = stage_.units[i];
        ranks.push_back({unit.rank, unit.node, tracked_[i].phase, as_duration(now - tracked_[i].last_change),
                         tracked_[i].phase_done});
        indices.push_back(i);
    }
    // The gate has not passed while the stage is watched: the group is not serving yet.
    const auto verdicts = judge_ranks(ranks, stage_.stall_after, false);
    for (std::size_t k = 0; k < indices.size(); ++k) {
        auto& tracked = tracked_[indices[k]];
        tracked.verdict_changed = tracked.verdict_changed || verdicts[k] != tracked.verdict;
        tracked.verdict = verdicts[k];
        tracked.stall = verdicts[k] == RankVerdict::kStalled ? describe_stall(ranks, k) : std::string();
    }
}

std::vector<ProgressWatch::Stalled> ProgressWatch::stalled() const {
    std::vector<Stalled> out;
    for (std::size_t i = 0; i < tracked_.size(); ++i)
        if (tracked_[i].verdict == RankVerdict::kStalled)
            out.push_back({&stage_.units[i], tracked_[i].stall});
    return out;
}

UnitProgress ProgressWatch::observe(std::size_t index, const std::vector<std::string>& lines, TimePoint now) {
    auto& tracked = tracked_.at(index);
    std::string tail;
    for (const auto& line : lines) tail += line + '\n';
    const bool moved = tail != tracked.tail;
    if (moved) {
        tracked.tail = std::move(tail);
        tracked.classification = runtime::classify(lines, stage_.kind);
    } else if (!tracked.seen) {
        tracked.classification = runtime::classify(lines, stage_.kind);
    }
    const auto& seen = tracked.classification;
    if (seen.newest) {
        const auto ahead = std::chrono::duration_cast<TimePoint::duration>(seen.newest->time_since_epoch()) -
                           now.time_since_epoch();
        tracked.log_ahead = tracked.log_ahead ? std::max(*tracked.log_ahead, ahead) : ahead;
    }
    if (moved) {
        // The log moved some time since the previous read: when its newest line says, mapped to our
        // clock, else now. A stall is then counted from the hang, not from the poll that saw it.
        tracked.last_change = now;
        if (seen.newest && tracked.log_ahead) {
            const TimePoint written{
                std::chrono::duration_cast<TimePoint::duration>(seen.newest->time_since_epoch()) -
                *tracked.log_ahead};
            tracked.last_change = std::clamp(written, tracked.last_read, now);
        }
    }
    tracked.last_read = now;

    UnitProgress progress;
    // Forward only: when the line that marked the phase scrolls out of the tail, the unit is still
    // there. kFailed is the largest phase, so a failure always shows.
    const auto phase = tracked.seen ? std::max(tracked.phase, seen.phase) : seen.phase;
    if (!tracked.seen || phase != tracked.phase) {
        // The poll sees a phase up to one interval late (or several phases at once): date each start by
        // the time of the line that entered it, mapped to our clock, never before the previous phase
        // began nor after now. Without a timed line, the phase began now.
        auto floor = tracked.seen ? tracked.phase_started : began_;
        const auto date = [&](const std::optional<runtime::LogTime>& since) {
            if (!since || !tracked.log_ahead) return now;
            const TimePoint logged{
                std::chrono::duration_cast<TimePoint::duration>(since->time_since_epoch()) -
                *tracked.log_ahead};
            return std::clamp(logged, floor, now);
        };
        auto started = now;
        for (const auto& entry : seen.entered) {
            if (tracked.seen && entry.phase <= tracked.phase) continue;
            if (entry.phase > phase) break;
            const auto when = entry.phase == phase && phase != seen.phase ? now : date(entry.since);
            floor = when;
            progress.entered.push_back({entry.phase, as_duration(now - when)});
            if (entry.phase == phase) started = when;
        }
        if (progress.entered.empty() || progress.entered.back().phase != phase)
            progress.entered.push_back({phase, as_duration(now - started)});
        if (tracked.seen) {
            progress.previous = tracked.phase;
            progress.previous_took = as_duration(started - tracked.phase_started);
        }
        progress.phase_changed = true;
        tracked.seen = true;
        tracked.phase = phase;
        tracked.phase_done = false;
        tracked.phase_started = started;
        tracked.phase_line = phase == seen.phase ? excerpt(seen.phase_line) : std::string();
    }
    // Once a phase's end line scrolled out of the tail, the phase stays done.
    if (seen.phase == tracked.phase && seen.phase_done) tracked.phase_done = true;
    for (const auto& warning : seen.warnings) {
        if (std::find(tracked.warnings.begin(), tracked.warnings.end(), warning) != tracked.warnings.end())
            continue;
        tracked.warnings.push_back(warning);
        progress.new_warnings.push_back(warning);
    }
    progress.phase = tracked.phase;
    progress.phase_elapsed = as_duration(now - tracked.phase_started);
    progress.stage_elapsed = as_duration(now - began_);
    progress.stalled_for = as_duration(now - tracked.last_change);
    progress.phase_line = tracked.phase_line;
    progress.last_line = excerpt(seen.last_line);
    return progress;
}

}  // namespace pdctl::engine
