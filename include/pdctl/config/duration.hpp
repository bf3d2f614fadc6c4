#pragma once
// Durations as written in the cluster file: 500ms, 90s, 25m, 1h, or a plain integer (seconds).

#include <optional>
#include <string>
#include <string_view>

#include "pdctl/config/model.hpp"

namespace pdctl::config {

// nullopt when `text` is not one of the accepted forms (no sign, no spaces, no fractions).
std::optional<Duration> parse_duration(std::string_view text);

// The shortest exact form: 1500ms, 90s, 25m, 2h.
std::string format_duration(Duration duration);

// The accepted forms, for hints.
inline constexpr const char* kDurationForms = "500ms, 90s, 25m, 1h, or a plain number of seconds";

enum class ZeroDuration { kRefused, kAllowed };  // kAllowed: 0 means "do not wait"

// A duration the operator gave as `flag` (every flag that takes a time reads it the same way, whichever
// layer reads the flag's value); a usage error (Failure, exit 2) naming the flag and the forms it takes
// when `text` is not one.
Duration parse_duration_flag(const std::string& flag, const std::string& text,
                             ZeroDuration zero = ZeroDuration::kRefused);

}  // namespace pdctl::config
