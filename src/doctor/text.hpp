#pragma once
// String helpers for the doctor's parsers and checks: the shared ones from util, and sizes.

#include <string>

#include "pdctl/util/strings.hpp"

namespace pdctl::doctor::detail {

using util::join;
using util::lines;
using util::split;
using util::split_trimmed;
using util::trim;

// "1.5 GiB", "73 GiB": sizes for messages.
std::string format_gib(long long kib);

}  // namespace pdctl::doctor::detail
