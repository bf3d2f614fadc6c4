#pragma once
// `pdctl bench --sweep ... --svg FILE / --html FILE`: the Pareto chart of a sweep, drawn from its JSON
// document (report/sweep_view.hpp), so a saved sweep draws again. For each bench row two panels, output
// tokens/s per GPU against p90 TTFT and against p90 ITL: one colour per config, its load levels joined
// in order, a filled mark on the row's Pareto front (ops/sweep_ranking.hpp), and the front of the panel
// as a dashed step line. Self-contained and deterministic: golden-tested, rendered by chromium.

#include <nlohmann/json.hpp>
#include <string>

namespace pdctl::report {

// The configs' colours, best ranked first (the image test looks for them).
inline constexpr const char* kSweepColours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                                "#66a61e", "#e6ab02", "#a6761d", "#666666"};

std::string render_sweep_svg(const nlohmann::json& sweep);
// The standings as a table, then the chart.
std::string render_sweep_html(const nlohmann::json& sweep);

}  // namespace pdctl::report
