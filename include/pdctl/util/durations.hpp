#pragma once
// Durations for people, shared by the engine's messages and every reporter.

#include <chrono>
#include <string>

namespace pdctl::util {

// The clock of every timeout, deadline and elapsed time pdctl measures for itself: monotonic, so a step
// of the wall clock neither fires nor stretches one. Code that tests drive on a fake clock takes an
// engine::Clock instead.
using SteadyClock = std::chrono::steady_clock;

// "4.2s", "6m38s", "1h02m": gate deadlines, stage times, history.
std::string format_elapsed(std::chrono::milliseconds elapsed);

// Whole milliseconds from `began` until now, by the steady clock: how long a step took.
std::chrono::milliseconds milliseconds_since(SteadyClock::time_point began);

// Seconds with their fraction, at the duration's own resolution: JUnit's time attributes, the load
// generator's latencies, every `_s` field.
double to_seconds(std::chrono::duration<double> elapsed);
// Seconds from `began` until now, by the steady clock, to the clock's resolution.
double seconds_since(SteadyClock::time_point began);

// As a clock reads: "0:41", "6:38", "1:02:03". Progress lines and the live view use it.
std::string format_clock(std::chrono::milliseconds duration);

}  // namespace pdctl::util
