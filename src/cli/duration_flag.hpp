#pragma once
// Every flag that takes a time takes a duration (500ms, 90s, 25m, 1h, or a plain number of seconds),
// read and refused the same way.

#include <string>

#include "pdctl/config/duration.hpp"

namespace pdctl::cli {

enum class ZeroDuration { kRefused, kAllowed };  // kAllowed: 0 means "do not wait"

// The value of `flag`; a usage error naming the flag and the forms it takes when `text` is not one.
config::Duration parse_duration_flag(const std::string& flag, const std::string& text,
                                     ZeroDuration zero = ZeroDuration::kRefused);

}  // namespace pdctl::cli
