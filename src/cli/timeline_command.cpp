// pdctl timeline [RUN|last] [--vs RUN] [--svg FILE] [--html FILE]: a past start as a per-unit Gantt
// chart, from the coordinator's journal (report/timeline_view.hpp, report/timeline_svg.hpp).
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>

#include "chart_file.hpp"
#include "pdctl/ops/journal_queries.hpp"
#include "pdctl/report/timeline_svg.hpp"
#include "pdctl/report/timeline_view.hpp"
#include "pdctl/timeline/run_timeline.hpp"
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

int terminal_width() {
    winsize size{};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) {
        const int value = std::atoi(columns);
        if (value > 0) return value;
    }
    return 100;
}

bool colour_wanted() {
    const char* no_color = std::getenv("NO_COLOR");  // no-color.org: set and non-empty
    return ::isatty(STDOUT_FILENO) && !(no_color && *no_color) && !std::getenv("CI");
}

const timeline::RunTimeline& pick(const std::vector<timeline::RunTimeline>& runs, const std::string& selector,
                                  const std::string& source) {
    std::string error;
    const auto* run = timeline::find_run(runs, selector, error);
    if (!run)
        throw Failure(ExitCode::kUsage, fmt::format("timeline: {} ({})", error, source),
                      "`pdctl history` lists the runs; a start records its timeline from this version on");
    return *run;
}

ExitCode timeline_command(const GlobalOptions& global, const TimelineOptions& options) {
    if (options.width < 0 || (options.width > 0 && options.width < 40))
        throw Failure(ExitCode::kUsage, "--width takes 40 columns or more");
    auto context = load_context(global);
    const auto journal = ops::read_past_timelines(context);
    const auto& runs = journal.runs;
    std::vector<timeline::RunTimeline> shown{pick(runs, options.run, journal.source)};
    if (!options.vs.empty()) shown.push_back(pick(runs, options.vs, journal.source));

    if (!options.svg.empty())
        write_chart_file(options.svg, context.redactor.redact(report::render_timeline_svg(shown)), "svg");
    if (!options.html.empty())
        write_chart_file(options.html, context.redactor.redact(report::render_timeline_html(shown)), "html");
    std::string output;
    if (global.json) {
        auto document = report::timeline_to_json(shown.front());
        if (shown.size() > 1) document["vs"] = report::timeline_to_json(shown.back());
        document["source"] = journal.source;
        output = document.dump(2) + "\n";
    } else {
        report::TimelineTextOptions text;
        text.width = options.width > 0 ? options.width : terminal_width();
        text.colour = colour_wanted();
        output = shown.size() > 1 ? report::render_timeline_comparison(shown[0], shown[1], text)
                                  : report::render_timeline_text(shown[0], text);
    }
    fmt::print("{}", context.redactor.redact(output));
    return journal.code;
}

}  // namespace

void add_timeline_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<TimelineOptions>();
    auto* command = app.add_subcommand(
        "timeline",
        "a past start as a chart: one row per unit, its start-up phases, where each gate passed, the "
        "critical path (from the journal)");
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
