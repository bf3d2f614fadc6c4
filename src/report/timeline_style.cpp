#include "pdctl/report/timeline_style.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pdctl/timeline/critical_path.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {

const std::vector<PhaseStyle>& phase_styles() {
    // Colours: the ColorBrewer-like set the SVG golden pins; waiting phases (starting, joined) grey.
    static const std::vector<PhaseStyle> styles = {
        {"starting", 's', "starting", "#cfcfcf", 252},
        {"initialising", 'i', "initialising", "#9ecae1", 153},
        {"loading-weights", 'W', "loading weights", "#3182bd", 32},
        {"kv-cache", 'K', "KV cache", "#31a354", 35},
        {"cuda-graphs", 'G', "CUDA graphs", "#e6550d", 166},
        {"joined", 'j', "joined (waits for rank 0)", "#e0e0e0", 254},
        {"http-up", 'H', "HTTP up", "#756bb1", 97},
        {"warm-up", 'U', "warm-up", "#fdae6b", 215},
        {"ready", 'R', "ready", "#a1d99b", 151},
        {"failed", 'X', "failed", "#de2d26", 160},
    };
    return styles;
}

const PhaseStyle& phase_style(std::string_view id) {
    static const PhaseStyle unknown{"?", '?', "unknown phase", "#969696", 246};
    for (const auto& style : phase_styles())
        if (style.id == id) return style;
    return unknown;
}

std::vector<const PhaseStyle*> phases_in(const std::vector<timeline::RunTimeline>& runs) {
    std::set<std::string> seen;
    for (const auto& run : runs)
        for (const auto& stage : run.stages)
            for (const auto& unit : stage.units)
                for (const auto& span : unit.phases) seen.insert(span.phase);
    std::vector<const PhaseStyle*> out;
    for (const auto& style : phase_styles())
        if (seen.count(std::string(style.id))) out.push_back(&style);
    return out;
}

long long tick_step_ms(long long span_ms, double width, double min_gap) {
    static const long long steps[] = {1000,   2000,   5000,   10000,  15000,   30000,   60000,
                                      120000, 300000, 600000, 900000, 1800000, 3600000, 7200000};
    if (span_ms <= 0 || width <= 0) return steps[0];
    for (const auto step : steps)
        if (static_cast<double>(step) / static_cast<double>(span_ms) * width >= min_gap) return step;
    return steps[std::size(steps) - 1];
}

std::string tick_label(long long ms) {
    const long long s = ms / 1000;
    if (s < 60) return fmt::format("{}s", s);
    if (s % 3600 == 0) return fmt::format("{}h", s / 3600);
    if (s < 3600) return s % 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}m", s / 60);
    return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

std::string span_text(long long ms) {
    return util::format_elapsed(std::chrono::milliseconds(std::max(ms, 0LL)));
}

timeline::RunTimeline with_critical_path(timeline::RunTimeline run) {
    timeline::mark_critical_path(run);
    return run;
}

std::string unit_label(const timeline::StageTimeline& stage, const timeline::UnitTimeline& unit) {
    if (stage.units.size() == 1) return fmt::format("{} {}", stage.role, unit.node);
    return fmt::format("{} {} r{}", stage.role, unit.node, unit.rank);
}

SlowestPhase slowest_phase(const timeline::StageTimeline& stage) {
    SlowestPhase slowest;
    for (const auto& unit : stage.units)
        for (const auto& span : unit.phases) {
            // Waiting is not work: starting, joined and ready say how long others took.
            if (span.phase == "starting" || span.phase == "joined" || span.phase == "ready") continue;
            const long long ms = span.end_ms - span.begin_ms;
            if (ms <= slowest.ms) continue;
            slowest = {span.phase, ms,
                       stage.units.size() == 1 ? unit.node : fmt::format("{} rank {}", unit.node, unit.rank)};
        }
    return slowest;
}

}  // namespace pdctl::report
