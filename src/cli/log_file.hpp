#pragma once
// --log-file PATH (or $PDCTL_LOG_FILE): an append-only record of each pdctl run for the operator's
// records or a CI artifact, whatever the terminal showed. Per run: a header line (version, verb line,
// pid), pdctl's diagnostics at debug level whatever -v says, the progress of start/stop/restart as
// plain timestamped text (also under --json or the live view), and the final error and exit code.
// Every line is redacted with the secrets of the loaded config. One process-wide file, like the
// spdlog logger it feeds. Without --log-file every function here does nothing.

#include <cstdio>
#include <string>
#include <string_view>

#include "pdctl/util/redactor.hpp"

namespace pdctl::cli::log_file {

// Opens PATH for appending (created 0600: it holds node log lines), writes the header and adds the
// debug-level sink to the "pdctl" logger. Throws Failure(kUsage) naming the path and the reason.
void open(const std::string& path, int argc, char** argv);
// The open file, nullptr without --log-file.
std::FILE* stream();
// Secrets known once the config is loaded; the diagnostics written after this are redacted with them.
void redact_with(const util::Redactor& redactor);
// One timestamped entry (it may span lines), e.g. the final error. Text must be redacted already.
void write(std::string_view text);
// The run's last line, with its exit code.
void finish(int exit_code);

}  // namespace pdctl::cli::log_file
