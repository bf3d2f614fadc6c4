#pragma once
// One function per verb; each returns the process exit code. app.cpp wires them to CLI11.

#include <string>
#include <vector>

#include "context.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

struct PlanOptions {
    std::string verb = "start";
};
struct StartOptions {
    bool keep_on_failure = false;
    bool skip_doctor = false;  // --skip-doctor: start even if the static doctor rules find errors
};
struct LogsOptions {
    std::string role;
    std::string node;
    int rank = -1;
    int tail = -1;      // -1: 50 lines, or every line with --since
    std::string since;  // runtime::parse_since
    bool follow = false;
};
struct SmokeOptions {
    std::string prompt = "Hello";
    int max_new_tokens = 16;
    int timeout_seconds = 120;
};

ExitCode plan_command(const GlobalOptions& global, const PlanOptions& options);
ExitCode start_command(const GlobalOptions& global, const StartOptions& options);
ExitCode stop_command(const GlobalOptions& global);
ExitCode restart_command(const GlobalOptions& global, const StartOptions& options);
ExitCode status_command(const GlobalOptions& global);
ExitCode logs_command(const GlobalOptions& global, const LogsOptions& options);
ExitCode smoke_command(const GlobalOptions& global, const SmokeOptions& options);
struct DoctorOptions {
    bool static_only = false;  // --static: no node touched
};
ExitCode doctor_command(const GlobalOptions& global, const DoctorOptions& options);
ExitCode push_command(const GlobalOptions& global);
struct PullOptions {
    std::vector<std::string> roles;  // --role: only these roles' images (on their nodes)
    std::vector<std::string> nodes;  // --node: only on these nodes
    std::string timeout = "60m";     // one `<cli> pull`; images of 30+ GB take many minutes
};
ExitCode pull_command(const GlobalOptions& global, const PullOptions& options);

struct LockReleaseOptions {
    bool force = false;
};
struct HistoryOptions {
    int limit = 20;  // 0: every run the journal holds
};
ExitCode lock_status_command(const GlobalOptions& global);
ExitCode lock_release_command(const GlobalOptions& global, const LockReleaseOptions& options);
ExitCode history_command(const GlobalOptions& global, const HistoryOptions& options);

}  // namespace pdctl::cli
