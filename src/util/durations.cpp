#include "pdctl/util/durations.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdctl::util {

std::chrono::milliseconds milliseconds_since(SteadyClock::time_point began) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - began);
}

double to_seconds(std::chrono::duration<double> elapsed) {
    return elapsed.count();
}

double seconds_since(SteadyClock::time_point began) {
    return to_seconds(SteadyClock::now() - began);
}

std::string format_elapsed(std::chrono::milliseconds elapsed) {
    const auto ms = elapsed.count();
    if (ms < 60000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
    const auto seconds = ms / 1000;
    if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
    return fmt::format("{}h{:02}m", seconds / 3600, (seconds % 3600) / 60);
}

std::string format_clock(std::chrono::milliseconds duration) {
    const long long seconds = std::max<long long>(0, duration.count() / 1000);
    if (seconds >= 3600)
        return fmt::format("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
    return fmt::format("{}:{:02}", seconds / 60, seconds % 60);
}

}  // namespace pdctl::util
