#include "pdctl/timeline/run_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pdctl/runtime/kernel_cache.hpp"

namespace pdctl::timeline {
namespace {

using nlohmann::json;

std::string text(const json& line, const char* key) {
    const auto found = line.find(key);
    return found != line.end() && found->is_string() ? found->get<std::string>() : std::string();
}

long long number(const json& line, const char* key, long long otherwise = 0) {
    const auto found = line.find(key);
    return found != line.end() && found->is_number() ? found->get<long long>() : otherwise;
}

// The newest stage of `role` in the run: a rolling restart starts one group at a time, and a later
// event of a role belongs to its latest start.
StageTimeline* stage_of(RunTimeline& run, const std::string& role) {
    for (auto it = run.stages.rbegin(); it != run.stages.rend(); ++it)
        if (it->role == role) return &*it;
    return nullptr;
}

UnitTimeline& unit_of(StageTimeline& stage, const std::string& node, int rank) {
    for (auto& unit : stage.units)
        if (unit.node == node && unit.rank == rank) return unit;
    stage.units.push_back({node, rank, stage.begin_ms, "", {}, false});
    return stage.units.back();
}

void apply(RunTimeline& run, const json& line) {
    const std::string event = text(line, "event");
    const long long at = number(line, "epoch_ms");
    run.end_ms = std::max(run.end_ms, at);
    if (event == "record_begin") {
        run.who = text(line, "who");
        run.config = text(line, "config");
    } else if (event == "stage_begin" && text(line, "action") == "start") {
        StageTimeline stage;
        stage.role = text(line, "role");
        stage.kind = text(line, "kind");
        stage.fingerprint = text(line, "fingerprint");
        stage.begin_ms = at;
        stage.deadline_ms = number(line, "deadline_ms");
        run.stages.push_back(std::move(stage));
    } else if (event == "unit_done" && text(line, "action") == "start") {
        if (auto* stage = stage_of(run, text(line, "role"))) {
            auto& unit = unit_of(*stage, text(line, "node"), static_cast<int>(number(line, "rank")));
            unit.launched_ms = at;
            if (const auto cache = runtime::parse_cache_outcome(text(line, "detail")))
                unit.cache = cache->hit ? "hit" : "miss";
        }
    } else if (event == "unit_phase") {
        auto* stage = stage_of(run, text(line, "role"));
        if (!stage) return;
        auto& unit = unit_of(*stage, text(line, "node"), static_cast<int>(number(line, "rank")));
        // Phases only move forward in time: a date never goes before the one recorded before it.
        long long begin = std::max(number(line, "began_epoch_ms", at), stage->begin_ms);
        if (!unit.phases.empty()) begin = std::max(begin, unit.phases.back().begin_ms);
        unit.phases.push_back({text(line, "phase"), begin, begin});
    } else if (event == "stage_ready") {
        if (auto* stage = stage_of(run, text(line, "role"))) stage->ready_ms = at;
    } else if (event == "stage_failed") {
        if (auto* stage = stage_of(run, text(line, "role"))) {
            stage->end_ms = at;
            stage->failure = text(line, "reason");
            const auto node = text(line, "node");
            stage->failed_node = node;
            stage->failed_rank = static_cast<int>(number(line, "rank", -1));
            if (!node.empty())
                stage->failure = fmt::format("{} rank {}: {}", node, number(line, "rank", 0), stage->failure);
        }
    } else if (event == "record_end") {
        run.exit_code = static_cast<int>(number(line, "exit_code", -1));
        run.result = text(line, "result");
    }
}

// Ends every stage and phase: a stage at its gate (or failure, or the run's end), each phase at the
// next one's begin, the last at its stage's end.
void close(RunTimeline& run) {
    for (auto& stage : run.stages) {
        if (stage.ready_ms) stage.end_ms = *stage.ready_ms;
        if (stage.end_ms == 0) stage.end_ms = run.end_ms;
        std::sort(stage.units.begin(), stage.units.end(),
                  [](const UnitTimeline& a, const UnitTimeline& b) { return a.rank < b.rank; });
        for (auto& unit : stage.units) {
            // Launched, but no recognised line yet: that time is the "starting" phase.
            if (unit.phases.empty() ||
                (unit.phases.front().phase != "starting" && unit.phases.front().begin_ms > unit.launched_ms))
                unit.phases.insert(unit.phases.begin(), {"starting", unit.launched_ms, unit.launched_ms});
            for (std::size_t i = 0; i < unit.phases.size(); ++i) {
                auto& span = unit.phases[i];
                const long long next = i + 1 < unit.phases.size() ? unit.phases[i + 1].begin_ms
                                                                  : std::max(stage.end_ms, span.begin_ms);
                span.end_ms = std::max(next, span.begin_ms);
            }
        }
    }
    if (!run.stages.empty()) run.begin_ms = std::min(run.begin_ms, run.stages.front().begin_ms);
}

}  // namespace

std::string StageTimeline::cache_summary() const {
    std::size_t keeping = 0;
    std::size_t hits = 0;
    for (const auto& unit : units) {
        if (unit.cache.empty()) continue;
        ++keeping;
        if (unit.cache == "hit") ++hits;
    }
    if (keeping == 0) return "";
    if (hits == keeping && keeping == units.size()) return "hit";
    if (hits == 0) return "miss";
    return fmt::format("hit on {} of {}", hits, units.size());
}

long long UnitTimeline::phase_ms(const std::string& phase) const {
    long long total = 0;
    for (const auto& span : phases)
        if (span.phase == phase) total += span.end_ms - span.begin_ms;
    return total;
}

std::vector<RunTimeline> read_timelines(const std::string& jsonl) {
    std::vector<RunTimeline> runs;
    std::map<std::string, std::size_t> index;
    std::istringstream in(jsonl);
    std::string raw;
    while (std::getline(in, raw)) {
        const auto line = json::parse(raw, nullptr, false);
        if (!line.is_object()) continue;
        const std::string id = text(line, "run");
        if (id.empty()) continue;
        auto [where, fresh] = index.emplace(id, runs.size());
        if (fresh) {
            RunTimeline run;
            run.run = id;
            run.verb = text(line, "verb");
            run.started = text(line, "ts");
            run.begin_ms = number(line, "epoch_ms");
            runs.push_back(std::move(run));
        }
        apply(runs[where->second], line);
    }
    std::vector<RunTimeline> started;
    for (auto& run : runs) {
        if (run.stages.empty()) continue;
        close(run);
        started.push_back(std::move(run));
    }
    return started;
}

const RunTimeline* find_run(const std::vector<RunTimeline>& runs, const std::string& selector,
                            std::string& error) {
    if (runs.empty()) {
        error = "the journal holds no start yet";
        return nullptr;
    }
    if (selector.empty() || selector == "last") return &runs.back();
    std::vector<const RunTimeline*> matches;
    for (const auto& run : runs) {
        if (run.run == selector) return &run;
        if (run.run.rfind(selector, 0) == 0) matches.push_back(&run);
    }
    if (matches.size() == 1) return matches.front();
    if (matches.empty()) {
        error = fmt::format("no start {} in the journal (newest: {})", selector, runs.back().run);
    } else {
        std::string names;
        for (const auto* run : matches) names += (names.empty() ? "" : ", ") + run->run;
        error = fmt::format("{} names {} runs: {}", selector, matches.size(), names);
    }
    return nullptr;
}

}  // namespace pdctl::timeline
