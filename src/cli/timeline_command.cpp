// pdctl timeline [RUN|last] [--vs RUN] [--svg FILE] [--html FILE]: a past start as a per-unit Gantt
// chart, from the coordinator's record of past runs (ops/past_runs.hpp, report/timeline_view.hpp,
// report/timeline_svg.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "chart_file.hpp"
#include "pdctl/ops/past_runs.hpp"
#include "pdctl/report/terminal.hpp"
#include "pdctl/report/timeline_svg.hpp"
#include "pdctl/report/timeline_view.hpp"
#include "print_result.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct TimelineOptions {
    std::string run = "last";
    std::string vs;
    std::string svg;
    std::string html;
    int width = 0;  // 0: the terminal's, else 100
};

ExitCode timeline_command(const GlobalOptions& global, const TimelineOptions& options) {
    if (options.width < 0 || (options.width > 0 && options.width < 40))
        throw Failure(ExitCode::kUsage, "--width takes 40 columns or more");
    auto context = load_context(global);
    const auto past = ops::read_timelines_to_show(context, options.run, options.vs);
    const auto& shown = past.runs;

    if (!options.svg.empty())
        write_chart_file(options.svg, context.redactor.redact(report::render_timeline_svg(shown)), "svg");
    if (!options.html.empty())
        write_chart_file(options.html, context.redactor.redact(report::render_timeline_html(shown)), "html");
    print_result(
        global, context.redactor,
        [&] {
            auto document = report::timeline_to_json(shown.front());
            if (shown.size() > 1) document["vs"] = report::timeline_to_json(shown.back());
            document["source"] = past.source;
            return document;
        },
        [&] {
            report::TimelineTextOptions text;
            text.width = options.width > 0 ? options.width : report::terminal_width(stdout, 100);
            text.colour = report::terminal_of(stdout).colour;
            return shown.size() > 1 ? report::render_timeline_comparison(shown[0], shown[1], text)
                                    : report::render_timeline_text(shown[0], text);
        });
    return past.code;
}

}  // namespace

void add_timeline_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<TimelineOptions>();
    auto* command = app.add_subcommand(
        "timeline",
        "a past start as a chart: one row per unit, its start-up phases, where each gate passed, the "
        "critical path (from the recorded runs)");
    command->add_option("run", options->run, "the run: last (default), a run id or a unique prefix of one");
    command->add_option("--vs", options->vs,
                        "compare with this run: both charts on one scale, then phase by phase");
    command->add_option("--svg", options->svg, "also write the chart as a self-contained SVG file")
        ->type_name("FILE");
    command->add_option("--html", options->html, "also write it as a self-contained HTML page (no script)")
        ->type_name("FILE");
    command->add_option("--width", options->width, "columns of the terminal chart (default: the terminal's)");
    verbs.add(command, [options](const GlobalOptions& global) { return timeline_command(global, *options); });
}

}  // namespace pdctl::cli
