#pragma once
// Every flag that takes a time takes a duration (500ms, 90s, 25m, 1h, or a plain number of seconds),
// shown as DURATION in --help, read and refused the same way (config::parse_duration_flag, which the
// use cases that read a flag's value themselves call too).

#include <CLI/CLI.hpp>
#include <string>

#include "pdctl/config/duration.hpp"

namespace pdctl::cli {

// The one metavar of a duration in --help, whatever the verb.
inline constexpr const char* kDurationMetavar = "DURATION";

// Registers `name` as a duration flag read into `text` (parse_duration_flag reads it when the verb runs).
CLI::Option* add_duration_option(CLI::App& command, const std::string& name, std::string& text,
                                 const std::string& help);

using config::parse_duration_flag;
using config::ZeroDuration;

}  // namespace pdctl::cli
