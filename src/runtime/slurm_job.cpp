#include "pdctl/runtime/slurm_job.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "embedded/runtime_scripts.hpp"
#include "pdctl/config/names.hpp"
#include "pdctl/runtime/process_runtime.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::runtime {
namespace {

// The scripts are src/runtime/scripts/slurm_{write_file,rank,launch_step}.sh.

exec::Command write_file(const std::string& path, std::string content) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::slurm_write_file), "pdctl-write", path};
    command.stdin_data = std::move(content);
    command.timeout = std::chrono::seconds(30);
    return command;
}

}  // namespace

std::string slurm_labels_text(const UnitSpec& unit, const std::string& job_name) {
    std::string text;
    for (const auto& [key, value] : unit_labels(unit)) text += key + "=" + value + "\n";
    return text + "pdctl.job=" + job_name + "\n";
}

std::string slurm_minutes(config::Duration limit) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limit).count();
    return std::to_string((seconds + 59) / 60);
}

SlurmJob make_slurm_job(const config::SlurmSettings& settings, const std::string& output_dir,
                        const std::string& group, const std::vector<UnitSpec>& units,
                        const std::string& fingerprint, SlurmPlacement placement) {
    SlurmJob job;
    const std::string cluster = units.empty() ? std::string() : units.front().cluster;
    job.name = config::deployment_name(cluster, group);
    job.comment = fmt::format("pdctl cluster={} config={}", cluster, fingerprint);
    job.dir = output_dir + "/" + group;
    for (const auto& unit : units) job.nodes.push_back(unit.node);

    job.step = !settings.allocation.empty();
    job.allocation = settings.allocation;

    // One task per node. As a job, the batch script runs on the job's first node; as a step, a detached
    // srun on this machine, inside the allocation (--jobid), on the group's nodes of it.
    auto& srun = job.srun;
    srun = {"srun"};
    if (job.step) {
        srun.insert(srun.end(), {"--jobid=" + settings.allocation, "--job-name=" + job.name,
                                 "--nodelist=" + util::join(job.nodes, ",")});
    }
    srun.insert(srun.end(),
                {"--nodes=" + std::to_string(units.size()), "--ntasks-per-node=1", "--kill-on-bad-exit=1"});
    if (job.step) {
        // Steps of one allocation share its nodes' CPUs (the master beside prefill's rank 0): without
        // --overlap the second would wait for ever. The GPUs go to the SGLang groups only.
        srun.push_back("--overlap");
        if (!settings.gres.empty())
            srun.push_back(placement.gpus ? "--gres=" + settings.gres : "--gres=none");
    }
    // The ranks' own output is in their logs; srun's errors stay in job.out.
    srun.insert(srun.end(), {"--output=/dev/null", "sh", "-c", std::string(scripts::slurm_rank), "pdctl-rank",
                             job.dir, job.name});
    job.srun_script = srun.size() - 4;  // the rank script, before its three parameters
    srun.insert(srun.end(), job.nodes.begin(), job.nodes.end());
    job.job_script =
        "#!/bin/sh\n# " + job.name + ": written by pdctl " +
        (job.step ? "to run as a step of SLURM allocation " + settings.allocation : "for sbatch") +
        "; rank K runs on the K-th of " + std::to_string(units.size()) + " nodes (docs/slurm.md)\nexec " +
        util::join_command(srun) + "\n";

    // What a previous job of this group left (its exit codes, pids, logs, job.out) would be read as
    // this one's: gone before anything is written.
    exec::Command reset;
    reset.argv = {"rm", "-f", job.dir + "/job.out", job.dir + "/srun.pid"};
    for (const auto& unit : units)
        for (const char* suffix : {".exit", ".pid", ".started", ".log"})
            reset.argv.push_back(job.dir + "/" + unit.name + suffix);
    reset.timeout = std::chrono::seconds(30);
    job.prepare.push_back(std::move(reset));
    for (const auto& unit : units) {
        job.prepare.push_back(
            write_file(job.dir + "/" + unit.name + ".env", env_file_content(unit.program.env)));
        job.prepare.push_back(write_file(job.dir + "/" + unit.name + ".sh",
                                         "exec " + util::join_command(launch_argv(unit.program)) + "\n"));
        // Who the unit is, for status and a second pdctl (runtime/slurm_runtime.hpp): its labels and its
        // job's name, written after its other files, so a unit is listed only once they are complete.
        job.prepare.push_back(
            write_file(job.dir + "/" + unit.name + ".labels", slurm_labels_text(unit, job.name)));
    }
    job.prepare.push_back(write_file(job.dir + "/job.sh", job.job_script));

    if (job.step) {
        // The step outlives this pdctl: its srun is detached (setsid, output in job.out), and its pid
        // kept for the moment before SLURM lists the step.
        job.submit.argv = {"sh",         "-c",    std::string(scripts::slurm_launch_step),
                           "pdctl-step", job.dir, settings.allocation};
        job.submit.timeout = std::chrono::seconds(30);
        return job;
    }
    job.submit.argv = {"sbatch",
                       "--parsable",
                       "--job-name=" + job.name,
                       "--comment=" + job.comment,
                       "--nodes=" + std::to_string(units.size()),
                       "--nodelist=" + util::join(job.nodes, ","),
                       "--ntasks-per-node=1",
                       "--no-requeue",
                       "--chdir=" + job.dir,
                       "--output=" + job.dir + "/job.out"};
    if (!settings.partition.empty()) job.submit.argv.push_back("--partition=" + settings.partition);
    if (!settings.account.empty()) job.submit.argv.push_back("--account=" + settings.account);
    if (settings.time_limit.count() > 0)
        job.submit.argv.push_back("--time=" + slurm_minutes(settings.time_limit));
    if (placement.exclusive) job.submit.argv.push_back("--exclusive");
    if (placement.gpus && !settings.gres.empty()) job.submit.argv.push_back("--gres=" + settings.gres);
    job.submit.argv.insert(job.submit.argv.end(), settings.sbatch_options.begin(),
                           settings.sbatch_options.end());
    job.submit.argv.push_back(job.dir + "/job.sh");
    job.submit.timeout = std::chrono::seconds(60);

    return job;
}

}  // namespace pdctl::runtime

namespace pdctl::runtime {
namespace {

// States in which a node can take a new job now or once its current jobs end; anything else (drain,
// down, fail, maint, inval, future, unknown) or a not-responding mark (`*`) cannot.
bool usable_state(const std::string& state) {
    if (state.empty() || state.back() == '*') return false;
    for (const char* usable : {"idle", "mixed", "allocated", "completing", "planned", "reserved"})
        if (state == usable) return true;
    return false;
}

}  // namespace

exec::Command slurm_node_query(const std::vector<std::string>& nodes) {
    exec::Command command;
    command.argv = {"sinfo", "--noheader", "--Node", "--nodes=" + util::join(nodes, ","),
                    "--format=%N|%T|%E"};
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::vector<SlurmNodeState> parse_slurm_node_states(const std::string& output) {
    std::vector<SlurmNodeState> states;
    for (const auto& line : split_lines(output)) {
        const auto first = line.find('|');
        const auto second = first == std::string::npos ? first : line.find('|', first + 1);
        if (second == std::string::npos) continue;
        SlurmNodeState state{line.substr(0, first), line.substr(first + 1, second - first - 1),
                             line.substr(second + 1)};
        // --Node lists a node once per partition it is in: the first says it all.
        const bool seen = std::any_of(states.begin(), states.end(),
                                      [&](const SlurmNodeState& other) { return other.node == state.node; });
        if (!seen) states.push_back(std::move(state));
    }
    return states;
}

std::vector<std::string> slurm_node_problems(const std::vector<std::string>& wanted,
                                             const std::vector<SlurmNodeState>& states) {
    std::vector<std::string> problems;
    for (const auto& node : wanted) {
        const auto found = std::find_if(states.begin(), states.end(),
                                        [&](const SlurmNodeState& state) { return state.node == node; });
        if (found == states.end()) {
            problems.push_back(node + ": not a node of this SLURM cluster (sinfo does not list it)");
        } else if (!usable_state(found->state)) {
            const bool quiet = !found->state.empty() && found->state.back() == '*';
            std::string text = node + ": " +
                               (quiet ? found->state.substr(0, found->state.size() - 1) : found->state) +
                               " in SLURM";
            if (quiet) text += ", not responding";
            if (!found->reason.empty() && found->reason != "none") text += " (reason: " + found->reason + ")";
            problems.push_back(std::move(text));
        }
    }
    return problems;
}

}  // namespace pdctl::runtime
