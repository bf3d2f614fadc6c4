#include "pdctl/report/sweep_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "pdctl/report/chart_parts.hpp"
#include "pdctl/report/xml_text.hpp"

namespace pdctl::report {
namespace {

using json = nlohmann::json;

constexpr int kWidth = 960;
constexpr double kPanelLeft[] = {70, 550};
constexpr double kSweepPanelWidth = 360;
constexpr int kPanelHeight = 240;
constexpr int kRowGap = 70;
constexpr const char* kFrontColour = "#999999";

struct Mark {
    std::size_t config = 0;  // its place in the ranking: its colour
    std::string label;       // "2p2d.yaml c=16"
    std::string level;       // "c=16", written beside the mark
    double per_gpu = 0;
    double x = 0;  // p90 TTFT in s, or p90 ITL in ms
    bool pareto = false;
};

const char* colour_of(std::size_t config) {
    return kSweepColours[config % std::size(kSweepColours)];
}

std::vector<std::string> rows_of(const json& ranking) {
    std::vector<std::string> rows;
    for (const auto& standing : ranking)
        for (const auto& point : array_of(standing, "points")) {
            const std::string row = point.value("row", "");
            if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
        }
    return rows;
}

// The marks of one row on one panel; failed levels with no answer have no latency to place.
std::vector<Mark> marks_of(const json& ranking, const std::string& row, const char* field, double unit) {
    std::vector<Mark> marks;
    for (std::size_t c = 0; c < ranking.size(); ++c)
        for (const auto& point : array_of(ranking[c], "points")) {
            if (point.value("row", "") != row || point.value("ok", 0) == 0) continue;
            marks.push_back({c, ranking[c].value("config", "") + " " + point.value("level", ""),
                             point.value("level", ""), point.value("output_throughput_per_gpu", 0.0),
                             point.value(field, 0.0) * unit, point.value("pareto", false)});
        }
    return marks;
}

// The panel's own front: the marks no other beats on both axes (more per GPU, less latency), by latency.
std::vector<const Mark*> front_of(const std::vector<Mark>& marks) {
    std::vector<const Mark*> front;
    for (const auto& mark : marks) {
        const bool beaten = std::any_of(marks.begin(), marks.end(), [&](const Mark& other) {
            return &other != &mark && other.per_gpu >= mark.per_gpu && other.x <= mark.x &&
                   (other.per_gpu > mark.per_gpu || other.x < mark.x);
        });
        if (!beaten) front.push_back(&mark);
    }
    std::sort(front.begin(), front.end(), [](const Mark* a, const Mark* b) { return a->x < b->x; });
    return front;
}

void panel(std::string& out, const std::vector<Mark>& marks, std::size_t configs, double left, int top,
           const std::string& name) {
    double most_x = 0;
    double most_y = 0;
    for (const auto& mark : marks) {
        most_x = std::max(most_x, mark.x);
        most_y = std::max(most_y, mark.per_gpu);
    }
    const double x_max = nice_ceiling(most_x);
    const double y_max = nice_ceiling(most_y);
    const auto x_of = [&](double value) {
        return left + kSweepPanelWidth * std::clamp(value / x_max, 0.0, 1.0);
    };
    const auto y_of = [&](double value) {
        return top + kPanelHeight - kPanelHeight * std::clamp(value / y_max, 0.0, 1.0);
    };
    out += fmt::format("<text class=\"panel\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", left, top - 10,
                       xml_escape(name));
    for (int tick = 0; tick <= 4; ++tick) {
        const double x = x_max * tick / 4;
        const double y = y_max * tick / 4;
        out += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n",
                           x_of(x), top, x_of(x), top + kPanelHeight);
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n",
                           x_of(x), top + kPanelHeight + 14, x);
        out += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                           left, y_of(y), left + kSweepPanelWidth, y_of(y));
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n",
                           left - 6, y_of(y) + 4, y);
    }
    const auto front = front_of(marks);
    if (front.size() > 1) {
        std::string steps;
        for (std::size_t i = 0; i < front.size(); ++i) {
            if (i > 0) steps += fmt::format(" {:.1f},{:.1f}", x_of(front[i]->x), y_of(front[i - 1]->per_gpu));
            steps +=
                fmt::format("{}{:.1f},{:.1f}", i == 0 ? "" : " ", x_of(front[i]->x), y_of(front[i]->per_gpu));
        }
        out += fmt::format("<polyline class=\"front\" points=\"{}\" stroke=\"{}\"/>\n", steps, kFrontColour);
    }
    for (std::size_t c = 0; c < configs; ++c) {
        std::string points;
        for (const auto& mark : marks)
            if (mark.config == c)
                points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x_of(mark.x),
                                      y_of(mark.per_gpu));
        if (points.find(' ') != std::string::npos)
            out +=
                fmt::format("<polyline class=\"line\" points=\"{}\" stroke=\"{}\"/>\n", points, colour_of(c));
    }
    for (const auto& mark : marks)
        out += fmt::format("<text class=\"level\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x_of(mark.x) + 8,
                           y_of(mark.per_gpu) - 8, xml_escape(mark.level));
    for (const auto& mark : marks)
        out += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" stroke=\"{}\" fill=\"{}\"><title>{}: {:.2f} tok/s "
            "per "
            "GPU at {:.3g}{}</title></circle>\n",
            x_of(mark.x), y_of(mark.per_gpu), colour_of(mark.config),
            mark.pareto ? colour_of(mark.config) : "#ffffff", xml_escape(mark.label), mark.per_gpu, mark.x,
            name.find("TTFT") != std::string::npos ? " s" : " ms");
}

}  // namespace

std::string render_sweep_svg(const json& sweep) {
    const json& ranking = array_of(sweep, "ranking");
    const auto rows = rows_of(ranking);
    std::string body = fmt::format(
        "<text class=\"title\" x=\"10\" y=\"22\">sweep of {} configs · output tokens/s per GPU against p90 "
        "latency</text>\n",
        ranking.size());
    body +=
        "<text class=\"note\" x=\"10\" y=\"40\">up and left is better; filled: on the row's Pareto front; "
        "dashed: the panel's front</text>\n";
    int legend_y = 62;
    for (std::size_t c = 0; c < ranking.size(); ++c, legend_y += 18) {
        const auto& standing = ranking[c];
        const bool scored = standing.value("no_score", json()).is_null();
        body +=
            fmt::format("<circle cx=\"16\" cy=\"{}\" r=\"6\" fill=\"{}\"/>\n", legend_y - 4, colour_of(c));
        body += fmt::format("<text class=\"legend\" x=\"28\" y=\"{}\">{}. {} {}{}</text>\n", legend_y, c + 1,
                            xml_escape(standing.value("config", "")), xml_escape(standing.value("pd", "")),
                            scored ? fmt::format(" · {:.2f} tok/s per GPU", standing.value("score", 0.0))
                                   : " · " + xml_escape(standing["no_score"].get<std::string>()));
    }
    int top = legend_y + 30;
    for (const auto& row : rows) {
        panel(body, marks_of(ranking, row, "ttft_p90_s", 1), ranking.size(), kPanelLeft[0], top,
              "row " + row + ": tok/s per GPU against p90 TTFT (s)");
        panel(body, marks_of(ranking, row, "itl_p90_s", 1e3), ranking.size(), kPanelLeft[1], top,
              "row " + row + ": tok/s per GPU against p90 ITL (ms)");
        top += kPanelHeight + kRowGap;
    }
    return svg_document(
        kWidth, top,
        ".line{fill:none;stroke-width:2}.front{fill:none;stroke-width:1.5;stroke-dasharray:5,4}"
        "circle{stroke-width:2}.level{fill:#555;font-size:10px}",
        body);
}

std::string render_sweep_html(const json& sweep) {
    std::string table =
        "<table><tr><th>rank</th><th>config</th><th>P:D</th><th>GPUs</th><th>score</th><th>row</th>"
        "<th>level</th><th>tok/s per GPU</th><th>TTFT p90</th><th>ITL p90</th><th>e2e p50</th>"
        "<th>ok / failed</th></tr>\n";
    for (const auto& standing : array_of(sweep, "ranking")) {
        const bool scored = standing.value("no_score", json()).is_null();
        const std::string head = fmt::format(
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", standing.value("rank", 0),
            xml_escape(standing.value("config", "")), xml_escape(standing.value("pd", "")),
            standing.value("gpus", 0), scored ? fmt::format("{:.2f}", standing.value("score", 0.0)) : "-");
        const auto& points = array_of(standing, "points");
        if (points.empty())
            table += fmt::format("<tr>{}<td colspan=\"7\">{}</td></tr>\n", head,
                                 scored ? "" : xml_escape(standing["no_score"].get<std::string>()));
        for (const auto& point : points)
            table += fmt::format(
                "<tr>{}<td>{}</td><td>{}</td><td>{:.2f}{}</td><td>{:.0f} ms</td><td>{:.1f} ms</td><td>{:.2f} "
                "s</td><td>{} / {}</td></tr>\n",
                head, xml_escape(point.value("row", "")), xml_escape(point.value("level", "")),
                point.value("output_throughput_per_gpu", 0.0), point.value("pareto", false) ? " ◆" : "",
                point.value("ttft_p90_s", 0.0) * 1e3, point.value("itl_p90_s", 0.0) * 1e3,
                point.value("e2e_p50_s", 0.0), point.value("ok", 0), point.value("failed", 0));
    }
    table += "</table>\n";
    return html_page("pdctl bench --sweep", "nth-child(2)",
                     "<h2>Which P:D ratio: the standings, best first (◆ on the row's Pareto front)</h2>\n" +
                         table + render_sweep_svg(sweep));
}

}  // namespace pdctl::report
