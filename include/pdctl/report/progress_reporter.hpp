#pragma once
// The reporter that shows a run's progress to the operator, chosen from --json and what the stream can
// show (report/terminal.hpp): JSON Lines with --json; else the live view on a terminal that can redraw;
// else one line per change (CI logs, pipes, TERM=dumb). A log file, when there is one, gets the plain,
// UTC-stamped lines a CI log would show, whatever the screen shows.

#include <cstdio>
#include <memory>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

// `log`: nullptr for none.
std::unique_ptr<engine::Reporter> make_progress_reporter(std::FILE* out, bool json_lines, std::FILE* log,
                                                         const util::Redactor& redactor);

}  // namespace pdctl::report
