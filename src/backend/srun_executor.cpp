#include "pdctl/backend/srun_executor.hpp"

#include <sstream>

namespace pdctl::backend {

exec::Command running_jobs_query(const std::string& node) {
    exec::Command command;
    command.argv = {"squeue", "--noheader", "--states=RUNNING", "--nodelist=" + node, "--format=%i|%j"};
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::string job_to_enter(const std::string& squeue_output, const std::string& job_prefix) {
    std::istringstream lines(squeue_output);
    for (std::string line; std::getline(lines, line);) {
        const auto bar = line.find('|');
        if (bar == std::string::npos || bar == 0) continue;
        if (line.compare(bar + 1, job_prefix.size(), job_prefix) == 0) return line.substr(0, bar);
    }
    return "";
}

std::vector<std::string> srun_prefix(const std::string& job, const std::string& node) {
    // --quiet: srun's own "job step created" notes are not the command's output.
    return {"srun",      "--overlap",  "--jobid=" + job, "--nodelist=" + node,
            "--nodes=1", "--ntasks=1", "--quiet"};
}

exec::CommandResult SrunExecutor::run(const config::Node& node, const exec::Command& command) {
    std::string job = allocation_;
    if (job.empty()) {
        const auto listed = here_.run(node, running_jobs_query(node.name));
        if (!listed.ok()) {
            exec::CommandResult failed;
            failed.transport_error = "squeue failed: " + exec::failure_reason(listed);
            return failed;
        }
        job = job_to_enter(listed.out, job_prefix_);
        if (job.empty()) {
            exec::CommandResult unreachable;
            unreachable.transport_error = "no job of this deployment runs on " + node.name +
                                          " (under SLURM, pdctl reaches a node with srun --overlap inside "
                                          "one of its jobs)";
            return unreachable;
        }
    }
    exec::Command inside = command;
    inside.argv = srun_prefix(job, node.name);
    inside.argv.insert(inside.argv.end(), command.argv.begin(), command.argv.end());
    return here_.run(node, inside);
}

}  // namespace pdctl::backend
