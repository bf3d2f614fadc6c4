#include "pdctl/report/timeline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/report/timeline_style.hpp"
#include "pdctl/report/xml_text.hpp"
#include "pdctl/timeline/critical_path.hpp"
#include "pdctl/util/durations.hpp"

namespace pdctl::report {
namespace {

using timeline::RunTimeline;
using timeline::StageTimeline;
using timeline::UnitTimeline;

constexpr double kChartLeft = 230;
constexpr double kChartRight = kSvgWidth - 20;
constexpr int kPhaseBarHeight = 14;
constexpr int kStageGap = 6;

std::string summary(const RunTimeline& run) {
    return fmt::format("{} {} · {} · {} · {}", run.verb, run.run, run.started,
                       run.exit_code < 0 ? "unfinished" : run.result, span_text(run.span_ms()));
}

struct SvgScale {
    long long origin = 0;
    long long span = 1;
    double x(long long at) const {
        return kChartLeft + (kChartRight - kChartLeft) *
                                static_cast<double>(std::clamp(at - origin, 0LL, span)) /
                                static_cast<double>(span);
    }
};

int rows_height(const RunTimeline& run) {
    int height = 0;
    for (const auto& stage : run.stages)
        height += static_cast<int>(stage.units.size()) * kSvgRowHeight + kStageGap;
    return height;
}

// One run's chart, its top at `top`; returns its height.
int draw_run(std::string& out, const RunTimeline& run, long long span, int top) {
    const SvgScale scale{run.begin_ms, std::max(span, 1LL)};
    out += fmt::format("<text class=\"title\" x=\"10\" y=\"{}\">{}</text>\n", top + 16,
                       xml_escape(summary(run)));
    const auto path = timeline::describe_critical_path(run);
    out += fmt::format("<text class=\"note\" x=\"10\" y=\"{}\">critical path: {}</text>\n", top + 34,
                       xml_escape(path.empty() ? "-" : path));
    const int axis = top + 54;
    const int rows_top = axis + 8;
    const int rows_bottom = rows_top + rows_height(run);
    const long long step = tick_step_ms(scale.span, kChartRight - kChartLeft, 60);
    for (long long t = 0; t <= scale.span; t += step) {
        const double x = scale.x(run.begin_ms + t);
        out += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", x,
                           axis + 2, x, rows_bottom);
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", x, axis, tick_label(t));
    }
    int y = rows_top;
    for (const auto& stage : run.stages) {
        for (const auto& unit : stage.units) {
            const auto label = unit_label(stage, unit);
            out += fmt::format("<text class=\"{}\" x=\"10\" y=\"{}\">{}{}</text>\n",
                               unit.critical ? "label on-path" : "label", y + 14, unit.critical ? "* " : "",
                               xml_escape(label));
            for (const auto& span_ : unit.phases) {
                const double x0 = scale.x(span_.begin_ms);
                const double width = std::max(scale.x(span_.end_ms) - x0, 0.5);
                const auto& style = phase_style(span_.phase);
                out += fmt::format(
                    "<rect class=\"segment\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
                    "fill=\"{}\">"
                    "<title>{}: {} {} (from {})</title></rect>\n",
                    x0, y + 3, width, kPhaseBarHeight, style.colour, xml_escape(label), style.label,
                    span_text(span_.end_ms - span_.begin_ms), tick_label(span_.begin_ms - run.begin_ms));
            }
            if (unit.critical) {
                const double x0 = scale.x(unit.launched_ms);
                out += fmt::format(
                    "<rect class=\"path\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>\n", x0,
                    y + 2, std::max(scale.x(unit.end_ms()) - x0, 1.0), kPhaseBarHeight + 2);
            }
            if (unit.rank == stage.units.front().rank && stage.ready_ms) {
                const double x = scale.x(*stage.ready_ms);
                const int cy = y + 10;
                out += fmt::format(
                    "<polygon class=\"gate\" points=\"{:.1f},{} {:.1f},{} {:.1f},{} {:.1f},{}\">"
                    "<title>{} gate passed after {}</title></polygon>\n",
                    x, cy - 6, x + 6, cy, x, cy + 6, x - 6, cy, xml_escape(stage.role),
                    span_text(stage.ready_after_ms()));
            }
            if (!stage.failure.empty() && unit.critical) {
                const double x = scale.x(stage.end_ms);
                out += fmt::format(
                    "<path class=\"failed\" d=\"M{:.1f},{} l10,10 m0,-10 "
                    "l-10,10\"><title>{}</title></path>\n",
                    x - 5, y + 5, xml_escape(stage.role + " failed: " + stage.failure));
            }
            y += kSvgRowHeight;
        }
        y += kStageGap;
    }
    return rows_bottom - top + 10;
}

int draw_legend(std::string& out, const std::vector<RunTimeline>& runs, int top) {
    double x = 10;
    int y = top;
    const auto item = [&](std::string_view colour, const std::string& label) {
        const double width = 24 + 7.2 * static_cast<double>(label.size()) + 16;
        if (x + width > kSvgWidth - 10) {
            x = 10;
            y += 20;
        }
        if (!colour.empty())
            out += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x, y,
                               colour);
        out += fmt::format("<text class=\"legend\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", x + 18, y + 11,
                           xml_escape(label));
        x += width;
    };
    for (const auto* style : phases_in(runs)) item(style->colour, std::string(style->label));
    item("", "◆ gate passed   ✗ failed   * critical path (outlined)");
    return y + 20 - top;
}

std::string svg(const std::vector<RunTimeline>& runs_in) {
    std::vector<RunTimeline> runs;
    long long span = 1;
    for (const auto& run : runs_in) {
        runs.push_back(with_critical_path(run));
        span = std::max(span, run.span_ms());
    }
    std::string body;
    int top = 0;
    for (const auto& run : runs) top += draw_run(body, run, span, top);
    top += draw_legend(body, runs, top + 4) + 4;
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n",
        kSvgWidth, top);
    out +=
        fmt::format("<title>pdctl timeline {}</title>\n", xml_escape(runs.empty() ? "" : runs.front().run));
    out +=
        "<style>.title{font-size:14px;font-weight:bold}.note,.axis{fill:#555}.tick{stroke:#e5e5e5}"
        ".on-path{font-weight:bold;fill:#900}.path{fill:none;stroke:#900;stroke-width:1.5}"
        ".gate{fill:#111}.failed{stroke:#b00;stroke-width:2.5}</style>\n";
    out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n", kSvgWidth, top);
    return out + body + "</svg>\n";
}

}  // namespace

std::string render_timeline_svg(const std::vector<RunTimeline>& runs) {
    return svg(runs);
}

std::string render_timeline_html(const std::vector<RunTimeline>& runs) {
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    out +=
        fmt::format("<title>pdctl timeline {}</title>\n", xml_escape(runs.empty() ? "" : runs.front().run));
    out +=
        "<style>body{font-family:'DejaVu Sans',sans-serif;margin:16px;color:#222}"
        "h2{font-size:16px}table{border-collapse:collapse;margin:12px 0}td,th{padding:3px "
        "10px;border-bottom:1px solid #ddd;"
        "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
        ".failed{color:#b00}</style>\n</head>\n<body>\n";
    out += svg(runs);
    for (const auto& run_in : runs) {
        const auto run = with_critical_path(run_in);
        out += fmt::format("<h2>{}</h2>\n<p>critical path: {}</p>\n", xml_escape(summary(run)),
                           xml_escape(timeline::describe_critical_path(run)));
        out +=
            "<table>\n<tr><th>stage</th><th>units</th><th>ready after</th><th>deadline</th>"
            "<th>slowest phase</th></tr>\n";
        for (const auto& stage : run.stages) {
            const auto slowest = slowest_phase(stage);
            out += fmt::format(
                "<tr><td>{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
                "class=\"n\">{}</td><td>{}</td></tr>\n",
                stage.critical ? "* " : "", xml_escape(stage.role), stage.units.size(),
                stage.ready_ms ? span_text(stage.ready_after_ms())
                               : "<span class=\"failed\">not ready</span>",
                stage.deadline_ms > 0 ? span_text(stage.deadline_ms) : "-",
                slowest.ms > 0 ? xml_escape(fmt::format("{} {} ({})", phase_style(slowest.phase).label,
                                                        span_text(slowest.ms), slowest.where))
                               : "");
            if (!stage.failure.empty())
                out += fmt::format("<tr><td></td><td colspan=\"4\" class=\"failed\">failed: {}</td></tr>\n",
                                   xml_escape(stage.failure));
        }
        out += "</table>\n";
    }
    return out + "</body>\n</html>\n";
}

}  // namespace pdctl::report
