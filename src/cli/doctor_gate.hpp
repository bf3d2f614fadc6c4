#pragma once
// The static doctor rules in front of start and restart: errors refuse the start before anything
// touches a node (docs/doctor.md).

#include <string>

#include "context.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

// Prints the errors and warnings (a JSON Lines event with --json, else text on stderr); kUsage when
// errors refuse `verb`, after saying so.
ExitCode doctor_before_start(const GlobalOptions& global, const Context& context, const std::string& verb);

}  // namespace pdctl::cli
