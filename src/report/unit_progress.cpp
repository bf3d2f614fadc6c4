#include "pdctl/report/unit_progress.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdctl::report {

std::string format_clock(std::chrono::milliseconds duration) {
    const long long seconds = std::max<long long>(0, duration.count() / 1000);
    if (seconds >= 3600)
        return fmt::format("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
    return fmt::format("{}:{:02}", seconds / 60, seconds % 60);
}

}  // namespace pdctl::report
