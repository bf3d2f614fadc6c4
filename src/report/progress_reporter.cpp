#include "pdctl/report/progress_reporter.hpp"

#include "pdctl/engine/tee_reporter.hpp"
#include "pdctl/report/live_view.hpp"
#include "pdctl/report/terminal.hpp"
#include "pdctl/report/text_reporter.hpp"

namespace pdctl::report {
namespace {

std::unique_ptr<engine::Reporter> make_screen_reporter(std::FILE* out, bool json_lines,
                                                       const util::Redactor& redactor) {
    if (json_lines) return std::make_unique<JsonLinesReporter>(out, redactor);
    const auto terminal = terminal_of(out);
    if (terminal.redraw) return std::make_unique<LiveViewReporter>(out, redactor, LiveStyle{terminal.colour});
    // UTC stamps for a log that is read later; a terminal's own clock for one read now.
    return std::make_unique<TextReporter>(out, redactor, terminal.ci || !terminal.tty);
}

}  // namespace

std::unique_ptr<engine::Reporter> make_progress_reporter(std::FILE* out, bool json_lines, std::FILE* log,
                                                         const util::Redactor& redactor) {
    auto screen = make_screen_reporter(out, json_lines, redactor);
    if (!log) return screen;
    return std::make_unique<engine::TeeReporter>(std::move(screen),
                                                 std::make_unique<TextReporter>(log, redactor, true));
}

}  // namespace pdctl::report
