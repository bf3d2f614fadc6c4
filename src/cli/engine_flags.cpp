#include "engine_flags.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include "duration_flag.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::cli {

void add_deadline_flags(CLI::App& command, std::string& policy, std::string& floor) {
    command
        .add_option(
            "--deadline-policy", policy,
            "learned: with 3 or more past successful starts of a stage's config, its gate deadline is "
            "clamp(p95 x 1.5, --deadline-floor, configured); fixed: the configured deadlines")
        ->check(CLI::IsMember({"learned", "fixed"}))
        ->capture_default_str();
    command.add_option("--deadline-floor", floor, "the shortest deadline learning may set")
        ->capture_default_str()
        ->type_name(kDurationMetavar);
}

timeline::DeadlinePolicy deadline_policy(const std::string& policy) {
    return policy == "fixed" ? timeline::DeadlinePolicy::kFixed : timeline::DeadlinePolicy::kLearned;
}

void add_transfer_error_limit_flag(CLI::App& command, int& limit) {
    command
        .add_option("--transfer-error-limit", limit,
                    "fail a router's stage once its gate request fails on the KV path this many times in a "
                    "row with the same error, instead of at the deadline (0 = wait for the deadline)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
}

void add_junit_flag(CLI::App& command, std::string& path, const std::string& holds) {
    command.add_option("--junit", path, "also write a JUnit XML report to FILE: " + holds + " (for CI)")
        ->type_name("FILE");
}

void check_junit_path(const std::string& path) {
    if (path.empty()) return;
    std::string error;
    if (!report::write_junit(path, {}, error))
        throw Failure(ExitCode::kUsage, fmt::format("--junit: cannot write {}: {}", path, error));
}

void write_junit_file(const std::string& path, const std::vector<report::JunitSuite>& suites,
                      const util::Redactor& redactor) {
    if (path.empty()) return;
    std::string error;
    if (!report::write_junit(path, report::redacted(suites, redactor), error))
        spdlog::warn("--junit: cannot write {}: {}", path, error);
}

void add_gpu_release_flag(CLI::App& command, StartOptions& options) {
    command
        .add_option("--gpu-release-timeout", options.gpu_release_timeout,
                    "how long to wait after the units stopped until their nodes show no GPU compute process "
                    "(exit 12 if one remains; 0 = do not wait)")
        ->default_str("60s")
        ->type_name(kDurationMetavar);
}

void add_skip_doctor_flag(CLI::App& command, StartOptions& options) {
    command.add_flag("--skip-doctor", options.skip_doctor,
                     "emergencies only: start even though `pdctl doctor` finds errors in the config");
    command.add_flag("--skip-preflight", options.skip_preflight,
                     "start without first checking the nodes (GPUs idle, ports free, images, RDMA devices); "
                     "the run records that it was skipped");
}

}  // namespace pdctl::cli
