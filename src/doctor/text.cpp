#include "text.hpp"

#include <fmt/format.h>

namespace pdctl::doctor::detail {

std::string format_gib(long long kib) {
    const double gib = static_cast<double>(kib) / (1024.0 * 1024.0);
    return gib < 10 ? fmt::format("{:.1f} GiB", gib) : fmt::format("{:.0f} GiB", gib);
}

}  // namespace pdctl::doctor::detail
