#pragma once
// Process-wide behaviour shared by every simulated program: signals and waiting.

#include <chrono>

namespace pdsim {

using Millis = std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Must run before any thread starts. Blocks SIGTERM/SIGINT in every thread and hands them to one
// thread that ends the process with status 0 (listening sockets close with it), so a stop is
// quick whatever the other threads are blocked in. SIGPIPE is ignored: a peer that hangs up is
// an error to report, not a reason to die.
void install_signal_handling();

// For a program whose work is done by other threads (servers, monitors): never returns; the
// process ends through a signal or exit_now().
[[noreturn]] void idle_forever();

void sleep_ms(Millis duration);

}  // namespace pdsim
