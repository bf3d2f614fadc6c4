#include "pdctl/runtime/slurm_runtime.hpp"

#include <cctype>

#include "embedded/runtime_scripts.hpp"
#include "pdctl/runtime/process_runtime.hpp"

namespace pdctl::runtime {

std::vector<std::string> SlurmRuntime::run_words(const UnitSpec& unit, const exec::Command&) const {
    return launch_argv(unit.program);
}

std::optional<SlurmJob> SlurmRuntime::group_job(const config::SlurmSettings& settings,
                                                const std::string& group, const std::vector<UnitSpec>& units,
                                                const std::string& fingerprint,
                                                SlurmPlacement placement) const {
    return make_slurm_job(settings, spec_.slurm_dir, group, units, fingerprint, placement);
}

std::string slurm_job_of(const std::string& unit_name) {
    auto dash = unit_name.rfind('-');
    if (dash == std::string::npos || dash + 1 == unit_name.size()) return unit_name;
    for (auto i = dash + 1; i < unit_name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(unit_name[i]))) return unit_name;
    return unit_name.substr(0, dash);
}

exec::Command SlurmRuntime::start(const UnitSpec& /*unit: the job starts it*/) const {
    return {};
}

exec::Command SlurmRuntime::stop(const std::string& unit_name) const {
    const bool step = !spec_.slurm_allocation.empty();
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    std::string(step ? scripts::slurm_stop_step : scripts::slurm_stop_job),
                    "pdctl-slurm-stop",
                    spec_.slurm_dir,
                    slurm_job_of(unit_name),
                    std::to_string(spec_.stop_grace_seconds),
                    std::to_string(kCancelWaitSeconds)};
    if (step) command.argv.push_back(spec_.slurm_allocation);
    command.timeout = std::chrono::seconds(spec_.stop_grace_seconds + kCancelWaitSeconds + 30);
    return command;
}

std::string SlurmRuntime::describe_stop(const std::string& unit_name) const {
    const auto job = slurm_job_of(unit_name);
    if (!spec_.slurm_allocation.empty())
        return "scancel --signal=TERM <step " + job + " of allocation " + spec_.slurm_allocation +
               ">, up to " + std::to_string(spec_.stop_grace_seconds) +
               "s for its ranks to exit, then scancel <step>, up to " + std::to_string(kCancelWaitSeconds) +
               "s for SLURM to end it";
    return "scancel --signal=TERM --name=" + job + ", up to " + std::to_string(spec_.stop_grace_seconds) +
           "s for its ranks to exit, then scancel --name=" + job + ", up to " +
           std::to_string(kCancelWaitSeconds) + "s for SLURM to end it";
}

exec::Command SlurmRuntime::logs(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    std::string(scripts::slurm_logs),
                    "pdctl-slurm-logs",
                    spec_.slurm_dir,
                    unit_name,
                    std::to_string(tail_lines)};
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command SlurmRuntime::log_activity(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    std::string(scripts::slurm_log_activity),
                    "pdctl-slurm-log-activity",
                    spec_.slurm_dir,
                    unit_name,
                    std::to_string(tail_lines)};
    command.timeout = std::chrono::seconds(20);
    return command;
}

LogActivity SlurmRuntime::parse_log_activity(const std::string& output) const {
    return parse_log_activity_text(output);
}

exec::Command SlurmRuntime::python_stack(const std::string& unit_name,
                                         const std::vector<std::string>& py_spy) const {
    // Runs on the rank's node, inside a job there (the backend's srun executor).
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::slurm_stack), "pdctl-stack", spec_.slurm_dir, unit_name};
    command.argv.insert(command.argv.end(), py_spy.begin(), py_spy.end());
    command.timeout = std::chrono::seconds(60);
    return command;
}

exec::Command SlurmRuntime::inspect(const std::string& /*cluster: the directory is per cluster*/) const {
    exec::Command command;
    command.argv = {
        "sh", "-c", std::string(scripts::slurm_inspect_job), "pdctl-slurm-inspect", spec_.slurm_dir, node_};
    if (!spec_.slurm_allocation.empty())
        command.argv = {"sh",
                        "-c",
                        std::string(scripts::slurm_inspect_step),
                        "pdctl-slurm-inspect",
                        spec_.slurm_dir,
                        node_,
                        spec_.slurm_allocation};
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::vector<UnitState> SlurmRuntime::parse_inspect(const std::string& output) const {
    return parse_state_blocks(output);
}

}  // namespace pdctl::runtime
