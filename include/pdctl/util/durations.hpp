#pragma once
// Durations for people, shared by the engine's messages and every reporter.

#include <chrono>
#include <string>

namespace pdctl::util {

// "4.2s", "6m38s", "1h02m": gate deadlines, stage times, history.
std::string format_elapsed(std::chrono::milliseconds elapsed);

// Whole milliseconds from `began` until now, by the steady clock: how long a step took.
long long milliseconds_since(std::chrono::steady_clock::time_point began);

// As a clock reads: "0:41", "6:38", "1:02:03". Progress lines and the live view use it.
std::string format_clock(std::chrono::milliseconds duration);

}  // namespace pdctl::util
