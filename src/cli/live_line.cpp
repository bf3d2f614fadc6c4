#include "live_line.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "pdctl/report/bench_view.hpp"

namespace pdctl::cli {

LiveLine::LiveLine(const GlobalOptions& global) {
    const char* term = std::getenv("TERM");
    wanted_ = !global.json && std::getenv("CI") == nullptr && ::isatty(STDERR_FILENO) && term && *term &&
              std::string_view(term) != "dumb";
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
