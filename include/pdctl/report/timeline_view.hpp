#pragma once
// `pdctl timeline` in the terminal: a Gantt chart per unit (one row each, phases as lettered and,
// on a terminal, coloured segments, ◆ where its stage's gate passed, ✗ where it failed, * on the
// critical path), the critical path and a per-stage table; `--vs` adds the phase-by-phase comparison
// with another run. And the same data as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "pdctl/timeline/run_timeline.hpp"

namespace pdctl::report {

struct TimelineTextOptions {
    int width = 100;      // columns of the whole chart
    bool colour = false;  // ANSI background colours on the segments
    // The time one chart spans, 0 = the run's own: two runs drawn on one scale compare at a glance.
    long long scale_ms = 0;
};

// `run` with its critical path marked (timeline/critical_path.hpp).
std::string render_timeline_text(const timeline::RunTimeline& run, const TimelineTextOptions& options);
// Both charts on one scale, then per stage its ready time and its slowest phases in both runs.
std::string render_timeline_comparison(const timeline::RunTimeline& run, const timeline::RunTimeline& other,
                                       const TimelineTextOptions& options);

nlohmann::json timeline_to_json(const timeline::RunTimeline& run);

}  // namespace pdctl::report
