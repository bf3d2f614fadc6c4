#include "pdctl/config/duration.hpp"

#include <cstdint>
#include <limits>

#include "pdctl/util/exit_code.hpp"

namespace pdctl::config {

namespace {

struct Unit {
    std::string_view suffix;
    std::int64_t milliseconds;
};

// Longest suffix first, so "ms" is not read as "m" followed by garbage.
constexpr Unit kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000}, {"", 1000}};

}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0) return std::nullopt;
    const std::string_view suffix = text.substr(digits);
    for (const auto& unit : kUnits) {
        if (suffix != unit.suffix) continue;
        // Reject values that would overflow the millisecond count instead of wrapping silently.
        const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / unit.milliseconds;
        std::int64_t value = 0;
        for (std::size_t i = 0; i < digits; ++i) {
            const int digit = text[i] - '0';
            if (value > (limit - digit) / 10) return std::nullopt;
            value = value * 10 + digit;
        }
        return Duration(value * unit.milliseconds);
    }
    return std::nullopt;
}

std::string format_duration(Duration duration) {
    const std::int64_t ms = duration.count();
    if (ms != 0 && ms % (60 * 60 * 1000) == 0) return std::to_string(ms / (60 * 60 * 1000)) + "h";
    if (ms != 0 && ms % (60 * 1000) == 0) return std::to_string(ms / (60 * 1000)) + "m";
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

Duration parse_duration_flag(const std::string& flag, const std::string& text, ZeroDuration zero) {
    const auto value = parse_duration(text);
    const bool allowed = value && (zero == ZeroDuration::kAllowed ? value->count() >= 0 : value->count() > 0);
    if (!allowed)
        throw Failure(ExitCode::kUsage, flag + ": cannot read '" + text + "'",
                      std::string(zero == ZeroDuration::kAllowed ? "a duration (0 = do not wait): "
                                                                 : "a duration greater than 0: ") +
                          kDurationForms);
    return *value;
}

}  // namespace pdctl::config
