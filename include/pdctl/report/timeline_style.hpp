#pragma once
// How each start-up phase looks in a timeline, the same in the terminal, the SVG and the HTML: a
// letter (readable without colour), a colour, and the words of the legend.

#include <string>
#include <string_view>
#include <vector>

#include "pdctl/timeline/run_timeline.hpp"

namespace pdctl::report {

struct PhaseStyle {
    std::string_view id;      // runtime::phase_id
    char letter;              // the terminal's segment character
    std::string_view label;   // legend
    std::string_view colour;  // "#3182bd" (SVG, HTML)
    int ansi;                 // 256-colour background for the terminal
};

// Every phase, in start-up order; an id pdctl does not know gets a grey '?' style.
const std::vector<PhaseStyle>& phase_styles();
const PhaseStyle& phase_style(std::string_view id);

// The phases the run shows, in start-up order: what a legend lists.
std::vector<const PhaseStyle*> phases_in(const std::vector<timeline::RunTimeline>& runs);

// Tick spacing for an axis `span_ms` long drawn `width` units wide, with at least `min_gap` units
// between ticks: 1s, 2s, 5s, 10s, 15s, 30s, 1m, 2m, 5m, 10m, 15m, 30m, 1h, ...
long long tick_step_ms(long long span_ms, double width, double min_gap);
// An axis label: "0s", "45s", "2m", "1m30s", "1h".
std::string tick_label(long long ms);

// "6m12s" (negative times show as 0s).
std::string span_text(long long ms);
// `run` with its critical path marked (timeline/critical_path.hpp).
timeline::RunTimeline with_critical_path(timeline::RunTimeline run);

// The row label of a unit: "prefill n3 r2" (the rank only for groups of several units).
std::string unit_label(const timeline::StageTimeline& stage, const timeline::UnitTimeline& unit);

// The longest phase of the stage across its units (none for a stage with no phases but starting).
struct SlowestPhase {
    std::string phase;
    long long ms = 0;
    std::string where;  // "n3 rank 2"
};
SlowestPhase slowest_phase(const timeline::StageTimeline& stage);

}  // namespace pdctl::report
