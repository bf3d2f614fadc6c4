#include "pdctl/runtime/slurm_job.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/shell_quote.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::runtime {
namespace {

// Writes stdin to $1 atomically, creating its directory; umask 077, so env files are 0600.
constexpr const char* kWriteFileScript =
    "umask 077\n"
    "mkdir -p \"${1%/*}\" || exit 1\n"
    "cat > \"$1.new\" && mv \"$1.new\" \"$1\"\n";

// One task per node: its rank is its node's place among the job's nodes (positional parameters after
// the directory and the job name). The env file must be complete (env_complete), the rank's exit code
// is kept beside its log, and the task exits with it, so srun names the failed rank.
constexpr const char* kRankScript =
    "dir=$1 job=$2; shift 2\n"
    "rank=-1 i=0\n"
    "for node in \"$@\"; do [ \"$node\" = \"$SLURMD_NODENAME\" ] && rank=$i; i=$((i + 1)); done\n"
    "[ \"$rank\" -ge 0 ] || { echo \"pdctl: node $SLURMD_NODENAME is none of the job's ($*)\" >&2; exit 96; "
    "}\n"
    "unit=$job-$rank\n"
    "env_complete \"$dir/$unit.env\" \"$unit\" || exit 1\n"
    "rm -f \"$dir/$unit.exit\"\n"
    "(\n"
    "  while IFS= read -r kv; do case $kv in '#'*) ;; *) export \"$kv\";; esac; done < \"$dir/$unit.env\"\n"
    "  exec sh \"$dir/$unit.sh\"\n"
    ") > \"$dir/$unit.log\" 2>&1 < /dev/null\n"
    "code=$?\n"
    "echo \"$code\" > \"$dir/$unit.exit\"\n"
    "exit \"$code\"\n";

exec::Command write_file(const std::string& path, std::string content) {
    exec::Command command;
    command.argv = {"sh", "-c", kWriteFileScript, "pdctl-write", path};
    command.stdin_data = std::move(content);
    command.timeout = std::chrono::seconds(30);
    return command;
}

}  // namespace

std::string slurm_minutes(config::Duration limit) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(limit).count();
    return std::to_string((seconds + 59) / 60);
}

std::string slurm_unit_log(const SlurmJob& job, const std::string& unit_name) {
    return job.dir + "/" + unit_name + ".log";
}

SlurmJob make_slurm_job(const config::SlurmSettings& settings, const std::string& output_dir,
                        const std::string& group, const std::vector<UnitSpec>& units,
                        const std::string& fingerprint, int stop_grace_seconds, SlurmPlacement placement) {
    SlurmJob job;
    const std::string cluster = units.empty() ? std::string() : units.front().cluster;
    job.name = fmt::format("pd-{}-{}", cluster, group);
    job.comment = fmt::format("pdctl cluster={} config={}", cluster, fingerprint);
    job.dir = output_dir + "/" + group;
    for (const auto& unit : units) job.nodes.push_back(unit.node);

    // The batch script runs on the job's first node and starts one task per node.
    auto& srun = job.srun;
    srun = {"srun", "--nodes=" + std::to_string(units.size()), "--ntasks-per-node=1", "--kill-on-bad-exit=1",
            // The ranks' own output is in their logs; srun's errors stay in job.out.
            "--output=/dev/null", "sh", "-c", env_complete_function() + kRankScript, "pdctl-rank", job.dir,
            job.name};
    srun.insert(srun.end(), job.nodes.begin(), job.nodes.end());
    job.srun_script = 7;
    job.job_script =
        "#!/bin/sh\n# " + job.name + ": written by pdctl for sbatch; rank K runs on the K-th of " +
        std::to_string(units.size()) + " nodes (docs/slurm.md)\nexec " + util::join_command(srun) + "\n";

    for (const auto& unit : units) {
        job.prepare.push_back(
            write_file(job.dir + "/" + unit.name + ".env", env_file_content(unit.program.env)));
        job.prepare.push_back(write_file(job.dir + "/" + unit.name + ".sh",
                                         "exec " + util::join_command(launch_argv(unit.program)) + "\n"));
    }
    job.prepare.push_back(write_file(job.dir + "/job.sh", job.job_script));

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

    // Stop: SIGTERM to every process of the job (--full: the batch script too), a wait of the role's
    // grace for the ranks to exit, then the cancel (SLURM's own SIGTERM, KillWait, SIGKILL). By name,
    // for every user: SLURM refuses what the caller may not cancel.
    job.terminate.argv = {"scancel", "--full", "--signal=TERM", "--name=" + job.name};
    job.terminate.timeout = std::chrono::seconds(30);
    job.cancel.argv = {"scancel", "--name=" + job.name};
    job.cancel.timeout = std::chrono::seconds(30);
    job.stop_grace_seconds = stop_grace_seconds;
    job.query.argv = {"squeue", "--noheader", "--states=all", "--name=" + job.name, "--format=%i|%T|%r|%N"};
    job.query.timeout = std::chrono::seconds(30);
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

namespace pdctl::runtime {

bool SlurmJobState::active() const {
    for (const char* final_state : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                    "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT"})
        if (state == final_state) return false;
    return !state.empty();
}

std::vector<SlurmJobState> parse_slurm_jobs(const std::string& output) {
    std::vector<SlurmJobState> jobs;
    for (const auto& line : split_lines(output)) {
        // No field of id|state|reason|nodes can hold a '|'.
        auto fields = util::split(line, '|');
        if (fields.size() == 4) jobs.push_back({fields[0], fields[1], fields[2], fields[3]});
    }
    return jobs;
}

}  // namespace pdctl::runtime
