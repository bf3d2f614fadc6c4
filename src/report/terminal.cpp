#include "pdctl/report/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace pdctl::report {

Terminal terminal_of(std::FILE* stream) {
    Terminal terminal;
    terminal.tty = ::isatty(::fileno(stream)) != 0;
    terminal.ci = std::getenv("CI") != nullptr;
    const char* term = std::getenv("TERM");
    const bool moves_cursor = term && *term && std::string_view(term) != "dumb";
    const char* no_color = std::getenv("NO_COLOR");
    terminal.redraw = terminal.tty && !terminal.ci && moves_cursor;
    terminal.colour = terminal.tty && !terminal.ci && !(no_color && *no_color);
    return terminal;
}

std::optional<int> terminal_columns(std::FILE* stream) {
    winsize size{};
    if (::ioctl(::fileno(stream), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return std::nullopt;
}

int terminal_width(std::FILE* stream, int fallback) {
    if (::isatty(::fileno(stream)))
        if (const auto columns = terminal_columns(stream)) return *columns;
    if (const char* columns = std::getenv("COLUMNS")) {
        const int value = std::atoi(columns);
        if (value > 0) return value;
    }
    return fallback;
}

}  // namespace pdctl::report
