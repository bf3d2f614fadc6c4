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

}  // namespace pdctl::config
