#pragma once
// start, stop, restart: their shared flags, and the step from flags to the use case (ops/engine_run.hpp):
// the static doctor rules gate start and restart, --junit records the run.

#include <functional>
#include <string>

#include "context.hpp"
#include "pdctl/ops/engine_run.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/report/junit.hpp"
#include "pdctl/timeline/start_history.hpp"
#include "pdctl/util/exit_code.hpp"

namespace CLI {
class App;
}

namespace pdctl::cli {

// The flags of start, stop and restart.
struct StartOptions {
    bool keep_on_failure = false;
    bool skip_doctor = false;     // --skip-doctor: start even if the static doctor rules find errors
    bool skip_preflight = false;  // --skip-preflight: start without the preflight on the nodes
    std::string gpu_release_timeout = "60s";  // stop/restart: --gpu-release-timeout
    plan::Scope scope;                        // --role / --group
    // restart only: one group at a time, through the router (plan/rolling.hpp)
    bool rolling = false;
    bool allow_router_restart = false;
    std::string drain_grace = "30s";
    // start/restart: gate deadlines from past starts (timeline/start_history.hpp)
    std::string deadline_policy = "learned";
    std::string deadline_floor = "1m";
    std::string junit;  // start/restart --junit FILE: a JUnit XML report of the stages and gates
};

// --junit FILE, the same for start and restart.
void add_junit_flag(CLI::App& command, std::string& path);
// Creates (truncates) `path` now, so a path that cannot be written is refused before anything runs.
void check_junit_path(const std::string& path);
// Writes the report; a file that cannot be written is a warning (the run's exit code stays its own).
void write_junit_file(const std::string& path, const std::vector<report::JunitSuite>& suites,
                      const util::Redactor& redactor);

// --deadline-policy and --deadline-floor, the same for start, restart and plan.
void add_deadline_flags(CLI::App& command, std::string& policy, std::string& floor);
// The gate deadlines of `plan` chosen from the past starts in `history`; a usage error for a bad flag
// value.
void apply_deadline_flags(plan::Plan& plan, const timeline::StartHistory& history, const std::string& policy,
                          const std::string& floor);

// --skip-doctor and --skip-preflight, the same for start and restart.
void add_skip_doctor_flag(CLI::App& command, StartOptions& options);
// --gpu-release-timeout, the same for stop and restart.
void add_gpu_release_flag(CLI::App& command, StartOptions& options);

// The verb's use case (ops/engine_run.hpp), after the static doctor rules allowed it, with --junit's
// report written whatever its end.
ExitCode run_engine_verb(const GlobalOptions& global, const StartOptions& options, ops::EngineVerb verb);

}  // namespace pdctl::cli
