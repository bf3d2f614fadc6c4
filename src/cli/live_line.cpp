#include "live_line.hpp"

#include <fmt/format.h>

#include "pdctl/report/bench_view.hpp"
#include "pdctl/report/terminal.hpp"

namespace pdctl::cli {

LiveLine::LiveLine(const GlobalOptions& global) {
    wanted_ = !global.json && report::terminal_of(stderr).redraw;
}

LiveLine::~LiveLine() {
    clear();
}

void LiveLine::show(const ops::BenchProgress& progress) const {
    if (wanted_) fmt::print(stderr, "\r\033[K{}", report::render_bench_progress(progress));
}

void LiveLine::clear() const {
    if (wanted_) fmt::print(stderr, "\r\033[K");
}

}  // namespace pdctl::cli
