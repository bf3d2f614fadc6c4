#include "pdctl/report/bench_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "pdctl/load/level_label.hpp"
#include "pdctl/report/chart_parts.hpp"
#include "pdctl/report/xml_text.hpp"

namespace pdctl::report {
namespace {

using json = nlohmann::json;

constexpr int kRowHeight = 22;
constexpr int kBarHeight = 14;
constexpr double kLabelRight = 200;
constexpr double kPanelWidth = 350;
constexpr double kPanelGap = 30;
constexpr int kLineChartHeight = 220;
constexpr const char* kP90Colour = "#6baed6";
constexpr const char* kP99Colour = "#c6dbef";
// Lines of the throughput chart: none of them the p50 blue, so the image test counts only bars.
constexpr const char* kLineColours[] = {"#e6550d", "#31a354", "#756bb1", "#636363", "#de2d26", "#fdae6b"};

struct Level {
    std::string row;
    std::string label;  // "medium c=4"
    int concurrency = 1;
    double rate = 0;
    const json* numbers = nullptr;
};

double stat(const json& level, const char* field, const char* which) {
    const auto it = level.find(field);
    if (it == level.end() || !it->is_object()) return 0;
    const auto value = it->find(which);
    return value != it->end() && value->is_number() ? value->get<double>() : 0;
}

double number(const json& level, const char* field) {
    const auto it = level.find(field);
    return it != level.end() && it->is_number() ? it->get<double>() : 0;
}

std::vector<Level> levels_of(const json& record) {
    std::vector<Level> levels;
    for (const auto& row : array_of(record, "rows")) {
        const std::string name = row.value("name", "");
        for (const auto& level : array_of(row, "levels")) {
            Level entry;
            entry.row = name;
            entry.concurrency = level.value("concurrency", 1);
            entry.rate =
                level.contains("rate") && level["rate"].is_number() ? level["rate"].get<double>() : 0;
            entry.label = name + " " +
                          load::level_label(entry.concurrency,
                                            entry.rate > 0 ? std::optional(entry.rate) : std::nullopt);
            entry.numbers = &level;
            levels.push_back(entry);
        }
    }
    return levels;
}

std::string title(const json& record) {
    return fmt::format("bench {} · {} · {} · {}", record.value("cluster", ""), record.value("scenario", ""),
                       record.value("pd", ""), record.value("started", ""));
}

// One panel of horizontal bars (p99, p90, p50 over each other) for `field`, in milliseconds.
void latency_panel(std::string& out, const std::vector<Level>& levels, const char* field, const char* name,
                   double left, int top) {
    double most = 0;
    for (const auto& level : levels) most = std::max(most, stat(*level.numbers, field, "p99") * 1e3);
    const double scale_max = nice_ceiling(most);
    const auto x = [&](double ms) { return left + kPanelWidth * std::clamp(ms / scale_max, 0.0, 1.0); };
    out += fmt::format("<text class=\"panel\" x=\"{:.1f}\" y=\"{}\">{} (ms): p50, p90, p99</text>\n", left,
                       top - 8, name);
    for (int tick = 0; tick <= 4; ++tick) {
        const double value = scale_max * tick / 4;
        const double at = x(value);
        out += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", at,
                           top, at, top + static_cast<int>(levels.size()) * kRowHeight);
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n",
                           at, top + static_cast<int>(levels.size()) * kRowHeight + 14, value);
    }
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const int y = top + static_cast<int>(i) * kRowHeight + (kRowHeight - kBarHeight) / 2;
        const json& numbers = *levels[i].numbers;
        const double p50 = stat(numbers, field, "p50") * 1e3;
        const double p90 = stat(numbers, field, "p90") * 1e3;
        const double p99 = stat(numbers, field, "p99") * 1e3;
        for (const auto& [value, colour, which] :
             {std::tuple{p99, kP99Colour, "p99"}, {p90, kP90Colour, "p90"}, {p50, kBenchP50Colour, "p50"}}) {
            out += fmt::format(
                "<rect class=\"bar\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
                "fill=\"{}\"><title>{} {} "
                "{:.2f} ms</title></rect>\n",
                left, y, std::max(0.0, x(value) - left), kBarHeight, colour, xml_escape(levels[i].label),
                which, value);
        }
        out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{}\">{:.1f}</text>\n", x(p99) + 4, y + 11,
                           p50);
    }
}

// Output tokens/s against concurrency, one line per row; returns its height.
int throughput_panel(std::string& out, const std::vector<Level>& levels, int top) {
    std::vector<int> xs;
    std::vector<std::string> rows;
    double most = 0;
    for (const auto& level : levels) {
        if (std::find(xs.begin(), xs.end(), level.concurrency) == xs.end()) xs.push_back(level.concurrency);
        if (std::find(rows.begin(), rows.end(), level.row) == rows.end()) rows.push_back(level.row);
        most = std::max(most, number(*level.numbers, "output_throughput"));
    }
    std::sort(xs.begin(), xs.end());
    const double scale_max = nice_ceiling(most);
    const double left = kLabelRight;
    const double width = 2 * kPanelWidth + kPanelGap;
    const auto x_of = [&](int concurrency) {
        const auto index = std::find(xs.begin(), xs.end(), concurrency) - xs.begin();
        return xs.size() < 2 ? left + width / 2
                             : left + width * static_cast<double>(index) / static_cast<double>(xs.size() - 1);
    };
    const auto y_of = [&](double value) {
        return top + kLineChartHeight - kLineChartHeight * std::clamp(value / scale_max, 0.0, 1.0);
    };
    out += fmt::format(
        "<text class=\"panel\" x=\"{:.1f}\" y=\"{}\">output tokens/s against concurrency</text>\n", left,
        top - 8);
    for (int tick = 0; tick <= 4; ++tick) {
        const double value = scale_max * tick / 4;
        out += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                           left, y_of(value), left + width, y_of(value));
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n",
                           left - 6, y_of(value) + 4, value);
    }
    for (int concurrency : xs)
        out += fmt::format("<text class=\"axis\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">c={}</text>\n",
                           x_of(concurrency), top + kLineChartHeight + 16, concurrency);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const char* colour = kLineColours[r % std::size(kLineColours)];
        std::string points;
        for (const auto& level : levels) {
            if (level.row != rows[r]) continue;
            const double px = x_of(level.concurrency);
            const double py = y_of(number(*level.numbers, "output_throughput"));
            points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", px, py);
            out += fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} {:.1f} "
                "tok/s</title></circle>\n",
                px, py, colour, xml_escape(level.label), number(*level.numbers, "output_throughput"));
        }
        out += fmt::format("<polyline class=\"line\" points=\"{}\" stroke=\"{}\"/>\n", points, colour);
        out += fmt::format("<text class=\"legend\" x=\"10\" y=\"{}\" fill=\"{}\">{}</text>\n",
                           top + 16 + 16 * static_cast<int>(r), colour, xml_escape(rows[r]));
    }
    return kLineChartHeight + 30;
}

}  // namespace

std::string render_bench_svg(const json& record) {
    const auto levels = levels_of(record);
    const int bars_top = 72;
    const int bars_height = static_cast<int>(levels.size()) * kRowHeight + 24;
    const int lines_top = bars_top + bars_height + 40;
    const int height = lines_top + kLineChartHeight + 40;
    std::string body;
    body += fmt::format("<text class=\"title\" x=\"10\" y=\"22\">{}</text>\n", xml_escape(title(record)));
    body += fmt::format(
        "<text class=\"note\" x=\"10\" y=\"40\">through {} · every request streamed; failed requests are not "
        "in the bars</text>\n",
        xml_escape(record.value("url", "")));
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const json& numbers = *levels[i].numbers;
        const int failed = numbers.value("failed", 0);
        body +=
            fmt::format("<text class=\"label{}\" x=\"10\" y=\"{}\">{}{}</text>\n",
                        failed > 0 ? " failed" : "", bars_top + static_cast<int>(i) * kRowHeight + 15,
                        xml_escape(levels[i].label), failed > 0 ? fmt::format(" ({} failed)", failed) : "");
    }
    latency_panel(body, levels, "ttft_s", "TTFT", kLabelRight, bars_top);
    latency_panel(body, levels, "itl_s", "ITL", kLabelRight + kPanelWidth + kPanelGap, bars_top);
    throughput_panel(body, levels, lines_top);
    return svg_document(kBenchSvgWidth, height,
                        ".failed{fill:#de2d26}.line{fill:none;stroke-width:2}.value{fill:#333}", body);
}

std::string render_bench_html(const json& record) {
    std::string table =
        "<table><tr><th>row</th><th>input → output</th><th>load</th><th>ok / failed</th><th>e2e p50</th>"
        "<th>TTFT p50</th><th>ITL p50</th><th>prefill tok/s</th><th>decode tok/s</th><th>output tok/s</th>"
        "<th>per GPU</th></tr>\n";
    for (const auto& row : array_of(record, "rows")) {
        for (const auto& level : array_of(row, "levels")) {
            const bool rate = level.contains("rate") && level["rate"].is_number();
            table += fmt::format(
                "<tr><td>{}</td><td>{} → {}</td><td>{}</td><td>{} / {}</td><td>{:.2f} s</td><td>{:.1f} "
                "ms</td>"
                "<td>{:.1f} ms</td><td>{:.0f}</td><td>{:.1f}</td><td>{:.1f}</td><td>{:.2f}</td></tr>\n",
                xml_escape(row.value("name", "")), row.value("input_tokens", 0),
                row.value("output_tokens", 0),
                load::level_label(level.value("concurrency", 1),
                                  rate ? std::optional(level["rate"].get<double>()) : std::nullopt),
                level.value("ok", 0), level.value("failed", 0), stat(level, "e2e_s", "p50"),
                stat(level, "ttft_s", "p50") * 1e3, stat(level, "itl_s", "p50") * 1e3,
                stat(level, "input_tok_s_per_request", "p50"), stat(level, "output_tok_s_per_request", "p50"),
                number(level, "output_throughput"), number(level, "output_throughput_per_gpu"));
        }
    }
    table += "</table>\n";
    std::string kv =
        "<table><tr><th>group</th><th>node</th><th>transfer failures</th><th>bootstrap failures</th></tr>\n";
    for (const auto& group : array_of(record, "kv")) {
        if (group.contains("unavailable")) {
            kv += fmt::format("<tr><td>{}</td><td>{}</td><td colspan=\"2\">{}</td></tr>\n",
                              xml_escape(group.value("role", "")), xml_escape(group.value("node", "")),
                              xml_escape(group.value("unavailable", "")));
            continue;
        }
        const auto counter = [&](const char* name) {
            const auto it = group.find(name);
            if (it == group.end() || !it->is_object()) return std::string("-");
            return fmt::format("{:g} → {:g}", it->value("before", 0.0), it->value("after", 0.0));
        };
        kv += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                          xml_escape(group.value("role", "")), xml_escape(group.value("node", "")),
                          counter("transfer_failed"), counter("bootstrap_failed"));
    }
    kv += "</table>\n";
    return html_page(title(record), "first-child",
                     fmt::format("<h2>{}</h2>\n{}<h2>KV path: rank-0 counters, before → after</h2>\n{}{}",
                                 xml_escape(title(record)), table, kv, render_bench_svg(record)));
}

}  // namespace pdctl::report
