#pragma once
// The flags start, stop, restart and plan share, and the checks of their values: --junit, the gate
// deadlines, --skip-doctor/--skip-preflight, --gpu-release-timeout, durations.

#include <string>
#include <vector>

#include "engine_verb_options.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/report/junit.hpp"
#include "pdctl/util/redactor.hpp"

namespace CLI {
class App;
}

namespace pdctl::cli {

// --junit FILE; `holds` says what the verb's report holds ("one test case per ..."), so that each verb's
// --help tells a CI job what it will read.
void add_junit_flag(CLI::App& command, std::string& path, const std::string& holds);
// Creates (truncates) `path` now, so a path that cannot be written is refused before anything runs.
void check_junit_path(const std::string& path);
// Writes the report; a file that cannot be written is a warning (the run's exit code stays its own).
void write_junit_file(const std::string& path, const std::vector<report::JunitSuite>& suites,
                      const util::Redactor& redactor);

// --deadline-policy and --deadline-floor, the same for start, restart and plan.
void add_deadline_flags(CLI::App& command, std::string& policy, std::string& floor);
// --deadline-policy's value (CLI11 allows only learned and fixed).
timeline::DeadlinePolicy deadline_policy(const std::string& policy);

// --transfer-error-limit N, the same for start and restart.
void add_transfer_error_limit_flag(CLI::App& command, int& limit);

// --skip-doctor and --skip-preflight, the same for start and restart.
void add_skip_doctor_flag(CLI::App& command, StartOptions& options);
// --gpu-release-timeout, the same for stop and restart.
void add_gpu_release_flag(CLI::App& command, StartOptions& options);

}  // namespace pdctl::cli
