#pragma once
// A flag's old spelling, kept working for one release after a rename: hidden from --help and from
// completion, it sets what the new spelling sets and prints one line to stderr naming the new one.
// Giving both is a usage error.

#include <CLI/CLI.hpp>
#include <string>

namespace pdctl::cli {

// "pdctl: --for is deprecated, use --partition-time"
std::string deprecation_line(const std::string& old_name, const std::string& new_name);

CLI::Option* add_deprecated_alias(CLI::App& command, const std::string& old_name, CLI::Option& replacement,
                                  std::string& target);

}  // namespace pdctl::cli
