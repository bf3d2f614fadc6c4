#include "pdctl/runtime/slurm_runtime.hpp"

#include <cctype>

#include "pdctl/runtime/process_runtime.hpp"

namespace pdctl::runtime {
namespace {

// The scripts are fixed text; every value is a positional parameter. They run on the submitting
// machine and read the job directories under "$1" (the cluster's) on the shared file system.

// SLURM's final job states: a job in any other state (PENDING and COMPLETING included: slurmstepd is
// still on the node) still holds, or will hold, the group's nodes.
constexpr const char* kFinalStates =
    "COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|REVOKED|"
    "SPECIAL_EXIT";

std::string final_state_case() {
    return std::string("''|") + kFinalStates;
}

// What every inspect prints of a unit whose labels are "$f" (files "$base.*"), once the caller has set
// $state, $scheduler and $now: one key=value block (parse_state_blocks), then the labels.
constexpr const char* kPrintUnit =
    "  printf 'unit=%s\\nstate=%s\\npid=%s\\nexit_code=%s\\nnow=%s\\nfinished=%s\\nstarted=%s\\n"
    "scheduler=%s\\n' \"${base##*/}\" \"$state\" \"$(cat \"$base.pid\" 2>/dev/null)\" "
    "\"$(cat \"$base.exit\" 2>/dev/null)\" \"$now\" \"$(stat -c %Y \"$base.exit\" 2>/dev/null)\" "
    "\"$(cat \"$base.started\" 2>/dev/null)\" \"$scheduler\"\n"
    "  cat \"$f\"\n"
    "  echo\n";

// Lists the units of node "$2", from their .labels and the newest job of their job's name (the
// highest id: squeue keeps ended jobs for MinJobAge). One squeue for every job on the node; a failing
// squeue fails the inspect, so no unit looks stopped because slurmctld did not answer.
std::string inspect_script() {
    return std::string(
               "root=$1 node=$2\n"
               "now=$(date +%s) names=\n"
               "for f in \"$root\"/*/*.labels; do\n"
               "  [ -f \"$f\" ] && grep -qxF \"pdctl.node=$node\" \"$f\" || continue\n"
               "  j=$(sed -n 's/^pdctl\\.job=//p' \"$f\")\n"
               "  case \",$names,\" in *\",$j,\"*) ;; *) names=${names:+$names,}$j ;; esac\n"
               "done\n"
               "[ -n \"$names\" ] || exit 0\n"
               "jobs=$(squeue --noheader --states=all --name=\"$names\" --format='%j|%i|%T|%r') || exit 1\n"
               "for f in \"$root\"/*/*.labels; do\n"
               "  [ -f \"$f\" ] && grep -qxF \"pdctl.node=$node\" \"$f\" || continue\n"
               "  base=${f%.labels}\n"
               "  j=$(sed -n 's/^pdctl\\.job=//p' \"$f\")\n"
               "  id=0 st= why=\n"
               "  while IFS='|' read -r name jid jst jwhy; do\n"
               "    [ \"$name\" = \"$j\" ] && [ \"$jid\" -gt \"$id\" ] 2>/dev/null && id=$jid st=$jst "
               "why=$jwhy\n"
               "  done <<EOF\n"
               "$jobs\n"
               "EOF\n"
               "  state=exited\n"
               "  [ -f \"$base.exit\" ] || case $st in ") +
           final_state_case() +
           ") ;; *) state=running ;; esac\n"
           "  scheduler=\"job $id $st ($why)\"\n"
           "  [ \"$id\" = 0 ] && scheduler=\"no job $j in squeue\"\n" +
           kPrintUnit + "done\n";
}

// Step mode (`nodes: from-allocation`): the groups are steps of allocation "$alloc", found by step
// name in `squeue --steps` (which lists running steps only). Before SLURM lists a step its srun is
// already running here (the group's srun.pid): that is a step still launching. A zombie is no srun
// (this machine's PID 1 may not reap the detached ones), nor is a process that only reuses the pid:
// it must be the group's srun, or job.sh just before it execs srun.
constexpr const char* kStepFunctions =
    "alive() {\n"
    "  s=$(ps -o stat=,args= -p \"$1\" 2>/dev/null) || return 1\n"
    "  case $s in Z*) return 1 ;; *\" --job-name=$2 \"* | *\" sh job.sh\") return 0 ;; esac\n"
    "  return 1\n"
    "}\n"
    // $steps: "ID|NAME" lines of every running step; a failing squeue fails the caller.
    "list_steps() { steps=$(squeue --noheader --steps --format='%i|%j' 2>&1) || "
    "{ echo \"pdctl: squeue failed: $steps\" >&2; exit 1; }; }\n"
    // $step: the running step of allocation $alloc named "$1", if any.
    "step_of() {\n"
    "  step=\n"
    "  while IFS='|' read -r sid sname; do\n"
    "    case $sid in \"$alloc\".*) [ \"$sname\" = \"$1\" ] && step=$sid ;; esac\n"
    "  done <<EOF\n"
    "$steps\n"
    "EOF\n"
    "}\n"
    // $srun: the live srun of group "$2", whose files are in directory "$1", if any.
    "srun_of() { srun=$(cat \"$1/srun.pid\" 2>/dev/null) && alive \"$srun\" \"$2\" || srun=; }\n";

// Lists the units of node "$2" in step mode, as inspect_script does for jobs.
std::string inspect_steps_script() {
    return std::string("root=$1 node=$2 alloc=$3\n") + kStepFunctions +
           "now=$(date +%s) listed=\n"
           "for f in \"$root\"/*/*.labels; do\n"
           "  [ -f \"$f\" ] && grep -qxF \"pdctl.node=$node\" \"$f\" || continue\n"
           "  [ -n \"$listed\" ] || { list_steps; listed=1; }\n"
           "  base=${f%.labels}\n"
           "  j=$(sed -n 's/^pdctl\\.job=//p' \"$f\")\n"
           "  step_of \"$j\"\n"
           "  srun_of \"${f%/*}\" \"$j\"\n"
           "  state=running scheduler=\"step $step RUNNING\"\n"
           "  if [ -z \"$step\" ] && [ -n \"$srun\" ]; then\n"
           "    scheduler=\"step $j of allocation $alloc PENDING (srun launching)\"\n"
           "  elif [ -z \"$step\" ]; then\n"
           "    state=exited scheduler=\"no step $j in allocation $alloc\"\n"
           "  fi\n"
           "  [ -f \"$base.exit\" ] && state=exited\n" +
           kPrintUnit + "done\n";
}

// The stop of a group "$job" once its script has defined `held` (sets $held: what SLURM still holds of
// it, empty when nothing), `terminate` (SIGTERM to its ranks), `cancel` (SLURM's own end) and `forget`
// (files only a live group needs): the terminate, up to the grace for it to go, the cancel, up to
// $kill_wait seconds more; exit 70 naming what SLURM still holds. Then the ranks' files go (their env
// files hold secrets), all but the logs and job.out.
constexpr const char* kStopFlow =
    "wait_gone() { i=0; while held; [ -n \"$held\" ] && [ \"$i\" -lt \"$(($1 * 5))\" ]; do sleep 0.2; "
    "i=$((i + 1)); done; }\n"
    "held\n"
    "if [ -z \"$held\" ]; then\n"
    "  said=\"$job was not running\"\n"
    "else\n"
    "  said=\"stopped $job ($held)\"\n"
    "  terminate\n"
    "  wait_gone \"$grace\"\n"
    "  if [ -n \"$held\" ]; then cancel || exit 1; wait_gone \"$kill_wait\"; fi\n"
    "  if [ -n \"$held\" ]; then\n"
    "    echo \"pdctl: SLURM still holds $held after SIGTERM, ${grace}s, scancel and ${kill_wait}s more\" "
    ">&2\n"
    "    exit 70\n"
    "  fi\n"
    "fi\n"
    "for f in \"$root\"/*/*.labels; do\n"
    "  [ -f \"$f\" ] && grep -qxF \"pdctl.job=$job\" \"$f\" || continue\n"
    "  b=${f%.labels}\n"
    "  rm -f \"$b.env\" \"$b.pid\" \"$b.started\" \"$b.exit\" \"$f\"\n"
    "done\n"
    "forget\n"
    "echo \"$said\"\n";

// Stops job "$2": SIGTERM to its steps' processes (the ranks; not --full: the batch script's srun
// would take SIGTERM as "kill the step" and SIGKILL the ranks at once), then the flow above. A job
// holds nodes in every state but the final ones; a pending job takes no signal: the cancel ends it.
std::string stop_script() {
    return std::string(
               "root=$1 job=$2 grace=$3 kill_wait=$4\n"
               "held() {\n"
               "  out=$(squeue --noheader --states=all --name=\"$job\" --format='%i %T' 2>&1) || "
               "{ echo \"pdctl: squeue failed: $out\" >&2; exit 1; }\n"
               "  held=\n"
               "  while read -r id st; do case $st in ") +
           final_state_case() +
           ") ;; *) held=\"${held:+$held, }job $id $st\" ;; esac; done <<EOF\n"
           "$out\n"
           "EOF\n"
           "}\n"
           "terminate() { scancel --signal=TERM --name=\"$job\" 2>/dev/null; }\n"
           "cancel() { scancel --name=\"$job\"; }\n"
           "forget() { :; }\n" +
           kStopFlow;
}

// Stops step "$2" of allocation "$5" with the same flow: the step while squeue lists it, and its srun
// while it runs. The allocation stays: it is the operator's.
std::string stop_step_script() {
    return std::string("root=$1 job=$2 grace=$3 kill_wait=$4 alloc=$5\n") + kStepFunctions +
           "dir=\n"
           "for f in \"$root\"/*/*.labels; do\n"
           "  [ -f \"$f\" ] && grep -qxF \"pdctl.job=$job\" \"$f\" && dir=${f%/*}\n"
           "done\n"
           "held() {\n"
           "  list_steps\n"
           "  step_of \"$job\"\n"
           "  held=${step:+step $step}\n"
           "  [ -z \"$dir\" ] || srun_of \"$dir\" \"$job\"\n"
           "  [ -z \"$srun\" ] || held=\"${held:+$held, }srun $srun\"\n"
           "}\n"
           "terminate() { [ -z \"$step\" ] || scancel --signal=TERM \"$step\" 2>/dev/null; }\n"
           "cancel() {\n"
           "  [ -z \"$step\" ] || scancel \"$step\" || return 1\n"
           "  [ -z \"$srun\" ] || kill -TERM \"$srun\" 2>/dev/null\n"
           "  return 0\n"
           "}\n"
           // Its pid could be another process's one day.
           "forget() { [ -z \"$dir\" ] || rm -f \"$dir/srun.pid\"; }\n" +
           kStopFlow;
}

// A rank's log under any group's directory (unit names are unique in a cluster): the header
// log_activity parses (now, last write), then the tail.
constexpr const char* kLogActivityScript =
    "root=$1 unit=$2 n=$3 log=\n"
    "for f in \"$root\"/*/\"$unit\".log; do [ -f \"$f\" ] && log=$f; done\n"
    "printf 'now=%s\\nlast_write=%s\\n\\n' \"$(date +%s)\" \"$(stat -c %Y \"$log\" 2>/dev/null)\"\n"
    "[ -n \"$log\" ] || exit 0\n"
    "tail -n \"$n\" \"$log\"\n";

// Without a log the rank never ran: what SLURM said instead (srun's errors, e.g. a GRES the allocation
// lacks) is in its group's job.out.
constexpr const char* kLogsScript =
    "root=$1 unit=$2 n=$3\n"
    "for f in \"$root\"/*/\"$unit\".log; do [ -f \"$f\" ] && exec tail -n \"$n\" \"$f\"; done\n"
    "for f in \"$root\"/*/\"$unit\".sh; do\n"
    "  out=${f%/*}/job.out\n"
    "  [ -s \"$out\" ] || continue\n"
    "  echo \"pdctl: $unit has no log: it never ran; SLURM's output for its group ($out):\"\n"
    "  exec tail -n \"$n\" \"$out\"\n"
    "done\n"
    "echo \"pdctl: no log of $unit under $root (its job has not started it yet)\" >&2\n"
    "exit 1\n";

constexpr const char* kStackScript =
    "echo \"pdctl: stack under executor: slurm is not supported yet ($1 runs inside its SLURM job; srun "
    "--overlap --jobid would reach it)\" >&2; exit 3";

}  // namespace

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
                    step ? stop_step_script() : stop_script(),
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
    command.argv = {
        "sh", "-c", kLogsScript, "pdctl-slurm-logs", spec_.slurm_dir, unit_name, std::to_string(tail_lines)};
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command SlurmRuntime::log_activity(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {"sh",
                    "-c",
                    kLogActivityScript,
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
                                         const std::vector<std::string>& /*py_spy*/) const {
    exec::Command command;
    command.argv = {"sh", "-c", kStackScript, "pdctl-slurm-stack", unit_name};
    command.timeout = std::chrono::seconds(5);
    return command;
}

exec::Command SlurmRuntime::inspect(const std::string& /*cluster: the directory is per cluster*/) const {
    exec::Command command;
    command.argv = {"sh", "-c", inspect_script(), "pdctl-slurm-inspect", spec_.slurm_dir, node_};
    if (!spec_.slurm_allocation.empty())
        command.argv = {"sh",
                        "-c",
                        inspect_steps_script(),
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
