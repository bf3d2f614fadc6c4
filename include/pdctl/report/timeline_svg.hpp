#pragma once
// `pdctl timeline --svg FILE` / `--html FILE`: the timeline as a self-contained chart (no network, no
// script, no external font or style sheet). One chart per run, drawn on one time scale (the first is
// the run asked for, a second the `--vs` run). Deterministic text for one journal: golden-tested.

#include <string>
#include <vector>

#include "pdctl/timeline/run_timeline.hpp"

namespace pdctl::report {

// Where things are, for the rendered-image test (tests/render): segments are <rect class="segment">
// elements, one row per unit, `kSvgRowHeight` apart.
constexpr int kSvgWidth = 960;
constexpr int kSvgRowHeight = 20;

std::string render_timeline_svg(const std::vector<timeline::RunTimeline>& runs);
// The SVG inline, with the per-stage table and the critical path, in one HTML page.
std::string render_timeline_html(const std::vector<timeline::RunTimeline>& runs);

}  // namespace pdctl::report
