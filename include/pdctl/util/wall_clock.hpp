#pragma once
// The wall clock as pdctl writes it down: journal lines, lock holders, the operators' intent, reports.
// Milliseconds since the Unix epoch are what records keep (they sort and subtract); the UTC text is
// what people read beside them. Durations are the steady clock's (util/durations.hpp).

#include <string>

namespace pdctl::util {

// Now, by the system clock, in whole milliseconds and whole seconds since 1970-01-01T00:00:00Z.
long long epoch_ms_now();
long long epoch_seconds_now();
// Now in seconds, to the clock's own resolution: to set against another host's `date +%s.%N`.
double epoch_seconds_exact_now();

// "2026-12-02T12:00:00Z": the second `epoch_ms` falls in, in UTC.
std::string utc_text(long long epoch_ms);
// "2026-12-02T12:00:00.042Z": the same with its milliseconds.
std::string utc_text_ms(long long epoch_ms);

}  // namespace pdctl::util
