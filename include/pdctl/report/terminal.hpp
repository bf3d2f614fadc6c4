#pragma once
// What the stream a verb writes to can show, read in one place from the stream and the environment:
// whether it is a terminal, whether it may redraw (a live view) and use colour, and how wide it is.
// CI logs ($CI set) and pipes get plain lines; TERM=dumb cannot move the cursor; NO_COLOR (no-color.org,
// set and non-empty) turns colour off.

#include <cstdio>
#include <optional>

namespace pdctl::report {

struct Terminal {
    bool tty = false;     // the stream is a terminal
    bool ci = false;      // $CI is set: its log keeps every line
    bool redraw = false;  // a terminal outside CI whose TERM can move the cursor: live views
    bool colour = false;  // a terminal outside CI, NO_COLOR unset or empty
};
Terminal terminal_of(std::FILE* stream);

// The stream's columns as the terminal reports them (TIOCGWINSZ); nullopt when it does not.
std::optional<int> terminal_columns(std::FILE* stream);
// The terminal's columns when `stream` is one, else $COLUMNS, else `fallback`.
int terminal_width(std::FILE* stream, int fallback);

}  // namespace pdctl::report
