#include "pdctl/runtime/process_runtime.hpp"

#include <sstream>

namespace pdctl::runtime {
namespace {

// The scripts are fixed text. Every value arrives as a positional parameter ("$1", "$@"), so no
// config value is ever parsed by the shell.

// alive PID: the process exists and is not a zombie (PID 1 on some hosts never reaps).
constexpr const char* kAliveFunction =
    "alive() { kill -0 \"$1\" 2>/dev/null && "
    "[ \"$(sed -n 's/.*) \\(.\\).*/\\1/p' \"/proc/$1/stat\" 2>/dev/null)\" != Z ]; }\n"
    // group_alive PGID: a live (non-zombie) process is still in the group. One awk over /proc/*/stat:
    // the fields after "(comm) " are state, ppid, pgrp. `cat` reads the files, not awk: a process that
    // exits between the glob and the read makes mawk abort (and the group look dead), cat goes on.
    "group_alive() { cat /proc/[0-9]*/stat 2>/dev/null | awk -v g=\"$1\" "
    "'{ sub(/.*\\) /, \"\"); if ($3 == g && $1 != \"Z\") f = 1 } END { exit !f }'; }\n"
    // group_members PGID: "pid (comm, state S), ..." of the group's live processes, for error messages.
    "group_members() { cat /proc/[0-9]*/stat 2>/dev/null | awk -v g=\"$1\" '{ pid = $1; comm = $0; "
    "sub(/^[^(]*\\(/, \"\", comm); sub(/\\) [^)]*$/, \"\", comm); sub(/.*\\) /, \"\"); "
    "if ($3 == g && $1 != \"Z\") { printf \"%s%s (%s, state %s)\", sep, pid, comm, $1; sep = \", \" } }'; "
    "}\n";

// The unit records itself before its program runs: the supervising sh (leader of the unit's new
// process group, so its pid is the group id) writes the pid file and moves the state file into place,
// then runs the program. Whenever pdctl dies — before this script, during it, after it — a program
// that runs has a record that status and stop find. The script returns once the record exists.
constexpr const char* kProcessStartScript =
    "dir=$1 unit=$2 labels=$3; shift 3\n"
    "mkdir -p \"$dir\" || exit 1\n"
    "umask 077\n"
    "cat > \"$dir/$unit.env\" || exit 1\n"
    "env_complete \"$dir/$unit.env\" \"$unit\"\n"
    "if [ -f \"$dir/$unit.pid\" ] && group_alive \"$(cat \"$dir/$unit.pid\")\"; then\n"
    "  echo \"pdctl: $unit is already running (pid $(cat \"$dir/$unit.pid\"))\" >&2; exit 17\n"
    "fi\n"
    "rm -f \"$dir/$unit.exit\" \"$dir/$unit.pid\" \"$dir/$unit.state\"\n"
    "printf '%s\\nstarted=%s\\n' \"$labels\" \"$(date +%s)\" > \"$dir/$unit.state.new\"\n"
    "(\n"
    "  while IFS= read -r kv; do case $kv in '#'*) ;; *) export \"$kv\";; esac; done < \"$dir/$unit.env\"\n"
    "  exec setsid sh -c 'echo $$ > \"$0.pid.new\" && mv \"$0.pid.new\" \"$0.pid\" && "
    "mv \"$0.state.new\" \"$0.state\" || exit 1; \"$@\"; echo $? > \"$0.exit\"' \"$dir/$unit\" \"$@\"\n"
    ") > \"$dir/$unit.log\" 2>&1 < /dev/null &\n"
    "child=$! i=0\n"
    "while [ ! -f \"$dir/$unit.state\" ] && alive \"$child\" && [ \"$i\" -lt 300 ]; do sleep 0.05; i=$((i + "
    "1)); "
    "done\n"
    "if [ ! -f \"$dir/$unit.state\" ]; then\n"
    "  echo \"pdctl: $unit did not start (no pid recorded): $(tail -n 3 \"$dir/$unit.log\" 2>/dev/null)\" "
    ">&2\n"
    "  exit 1\n"
    "fi\n"
    "echo \"started $unit pid $(cat \"$dir/$unit.pid\")\"\n";

// SIGTERM to the unit's process group, SIGKILL once the grace has passed, then a bounded wait for the
// kernel to finish the kill (a process in uninterruptible sleep — a GPU driver tearing down a
// context — dies only when it leaves it). Anything still alive after that is named on stderr with
// exit 70, and the record stays, so status keeps showing the unit and a later stop can try again.
constexpr const char* kProcessStopScript =
    "dir=$1 unit=$2 grace=$3 kill_wait=$4\n"
    "pid=$(cat \"$dir/$unit.pid\" 2>/dev/null)\n"
    "if [ -n \"$pid\" ] && group_alive \"$pid\"; then\n"
    // dash's kill takes no `--`; a negative pid signals the whole process group.
    "  kill -TERM \"-$pid\" 2>/dev/null || kill -TERM \"$pid\" 2>/dev/null\n"
    "  i=0\n"
    "  while group_alive \"$pid\" && [ \"$i\" -lt \"$((grace * 10))\" ]; do sleep 0.1; i=$((i + 1)); done\n"
    "  if group_alive \"$pid\"; then\n"
    "    kill -KILL \"-$pid\" 2>/dev/null\n"
    "    i=0\n"
    "    while group_alive \"$pid\" && [ \"$i\" -lt \"$((kill_wait * 10))\" ]; do sleep 0.1; i=$((i + 1)); "
    "done\n"
    "  fi\n"
    "  if group_alive \"$pid\"; then\n"
    "    echo \"pdctl: still running after SIGTERM, ${grace}s, SIGKILL and ${kill_wait}s more: "
    "$(group_members \"$pid\")\" >&2\n"
    "    exit 70\n"
    "  fi\n"
    "  echo \"stopped $unit (pid $pid)\"\n"
    "else\n"
    "  echo \"$unit was not running\"\n"
    "fi\n"
    "rm -f \"$dir/$unit.pid\" \"$dir/$unit.state\" \"$dir/$unit.state.new\" \"$dir/$unit.env\" "
    "\"$dir/$unit.exit\"\n";

constexpr const char* kProcessInspectScript =
    "dir=$1\n"
    "now=$(date +%s)\n"
    "for f in \"$dir\"/*.state; do\n"
    "  [ -e \"$f\" ] || continue\n"
    "  unit=${f##*/}; unit=${unit%.state}\n"
    "  pid=$(cat \"$dir/$unit.pid\" 2>/dev/null)\n"
    "  state=exited\n"
    "  if [ -n \"$pid\" ] && group_alive \"$pid\"; then state=running; fi\n"
    "  printf 'unit=%s\\nstate=%s\\npid=%s\\nexit_code=%s\\nnow=%s\\nfinished=%s\\n' \"$unit\" \"$state\" "
    "\"$pid\" \"$(cat \"$dir/$unit.exit\" 2>/dev/null)\" \"$now\" \"$(stat -c %Y \"$dir/$unit.exit\" "
    "2>/dev/null)\"\n"
    "  cat \"$f\"\n"
    "  echo\n"
    "done\n";

// The log file's modification time is its last write: a header the parser reads up to the blank line,
// then the tail.
constexpr const char* kProcessLogActivityScript =
    "dir=$1 unit=$2 n=$3\n"
    "f=$dir/$unit.log\n"
    "printf 'now=%s\\nlast_write=%s\\n\\n' \"$(date +%s)\" \"$(stat -c %Y \"$f\" 2>/dev/null)\"\n"
    "[ -e \"$f\" ] || exit 0\n"
    "tail -n \"$n\" \"$f\"\n";

// py-spy attaches to the program, not to the supervising shell that leads the unit's group.
constexpr const char* kProcessStackScript =
    "dir=$1 unit=$2; shift 2\n"
    "pgid=$(cat \"$dir/$unit.pid\" 2>/dev/null)\n"
    "[ -n \"$pgid\" ] || { echo \"pdctl: $unit is not running on this node (no pid file)\" >&2; exit 3; }\n"
    "pid=$(program_pid \"$pgid\")\n"
    "[ -n \"$pid\" ] || { echo \"pdctl: no program runs in $unit (process group $pgid)\" >&2; exit 3; }\n"
    "command -v \"$1\" >/dev/null 2>&1 || { echo \"pdctl: $1 is not installed on this node\" >&2; exit 127; "
    "}\n"
    "exec \"$@\" dump --pid \"$pid\" --subprocesses\n";

std::string labels_text(const std::map<std::string, std::string>& labels) {
    std::string out;
    for (const auto& [key, value] : labels) {
        if (!out.empty()) out += '\n';
        out += key + "=" + value;
    }
    return out;
}

std::vector<std::string> process_script(const std::string& body, const char* name) {
    return {"sh", "-c", std::string(kAliveFunction) + body, name};
}

}  // namespace

std::vector<std::string> launch_argv(const ProgramSpec& program) {
    if (program.bootstrap.empty()) return program.argv;
    // A failed BOOTSTRAP stops the unit (exit 97) instead of starting a server on a half-prepared node;
    // `{ }` rather than `( )` keeps what BOOTSTRAP exports for the server.
    std::vector<std::string> argv = {
        "sh", "-c",
        "{ " + program.bootstrap +
            "\n} || { echo \"pdctl: BOOTSTRAP failed (exit $?)\" >&2; exit 97; }\nexec \"$@\"",
        "pdctl-bootstrap"};
    argv.insert(argv.end(), program.argv.begin(), program.argv.end());
    return argv;
}

exec::Command ProcessRuntime::start(const UnitSpec& unit) const {
    exec::Command command;
    command.argv = process_script(env_complete_function() + kProcessStartScript, "pdctl-start");
    command.argv.insert(command.argv.end(), {dir_, unit.name, labels_text(unit_labels(unit))});
    const auto launch = launch_argv(unit.program);
    command.argv.insert(command.argv.end(), launch.begin(), launch.end());
    command.stdin_data = env_file_content(unit.program.env);
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ProcessRuntime::stop(const std::string& unit_name) const {
    exec::Command command;
    command.argv = process_script(kProcessStopScript, "pdctl-stop");
    command.argv.insert(command.argv.end(), {dir_, unit_name, std::to_string(spec_.stop_grace_seconds),
                                             std::to_string(kKillWaitSeconds)});
    command.timeout = std::chrono::seconds(spec_.stop_grace_seconds + kKillWaitSeconds + 30);
    return command;
}

std::string ProcessRuntime::describe_stop(const std::string& unit_name) const {
    return "SIGTERM to the process group in " + dir_ + "/" + unit_name + ".pid, SIGKILL after " +
           std::to_string(spec_.stop_grace_seconds) + "s, fails if alive " +
           std::to_string(kKillWaitSeconds) + "s later";
}

exec::Command ProcessRuntime::logs(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {"tail", "-n", std::to_string(tail_lines), dir_ + "/" + unit_name + ".log"};
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command ProcessRuntime::log_activity(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {"sh", "-c",      kProcessLogActivityScript, "pdctl-log-activity",
                    dir_, unit_name, std::to_string(tail_lines)};
    command.timeout = std::chrono::seconds(20);
    return command;
}

LogActivity ProcessRuntime::parse_log_activity(const std::string& output) const {
    return parse_log_activity_text(output);
}

LogActivity parse_log_activity_text(const std::string& output) {
    LogActivity activity;
    const auto blank = output.find("\n\n");
    const std::string header = output.substr(0, blank);
    for (const auto& line : split_lines(header)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos || eq + 1 == line.size()) continue;
        try {
            const auto value = std::stoll(line.substr(eq + 1));
            if (line.compare(0, eq, "now") == 0) activity.node_now_epoch = value;
            if (line.compare(0, eq, "last_write") == 0) activity.last_write_epoch = value;
        } catch (const std::exception&) {
            // Not a number: that field stays unknown.
        }
    }
    if (blank != std::string::npos) activity.lines = split_lines(output.substr(blank + 2));
    return activity;
}

exec::Command ProcessRuntime::python_stack(const std::string& unit_name,
                                           const std::vector<std::string>& py_spy) const {
    exec::Command command;
    command.argv = {"sh", "-c", program_pid_function() + kProcessStackScript, "pdctl-stack", dir_, unit_name};
    command.argv.insert(command.argv.end(), py_spy.begin(), py_spy.end());
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ProcessRuntime::inspect(const std::string& /*cluster: the directory is per cluster*/) const {
    exec::Command command;
    command.argv = process_script(kProcessInspectScript, "pdctl-inspect");
    command.argv.push_back(dir_);
    command.timeout = std::chrono::seconds(20);
    return command;
}

std::vector<UnitState> ProcessRuntime::parse_inspect(const std::string& output) const {
    return parse_state_blocks(output);
}

std::vector<UnitState> parse_state_blocks(const std::string& output) {
    std::vector<UnitState> units;
    UnitState current;
    bool open = false;
    auto flush = [&] {
        if (open && !current.unit.empty()) units.push_back(current);
        current = UnitState{};
        open = false;
    };
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) {
            flush();
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq);
        const std::string value = line.substr(eq + 1);
        open = true;
        try {
            if (key == "unit")
                current.unit = value;
            else if (key == "state")
                current.running = value == "running";
            else if (key == "pid")
                current.pid = value.empty() ? 0 : std::stoi(value);
            else if (key == "exit_code")
                current.exit_code = value;
            else if (key == "now")
                current.node_now_epoch = std::stoll(value);
            else if (key == "started")
                current.started_epoch = std::stoll(value);
            else if (key == "finished")
                current.finished_epoch = value.empty() ? 0 : std::stoll(value);
            else if (key == "scheduler")
                current.scheduler = value;
            else
                current.labels[key] = value;
        } catch (const std::exception&) {
            // A damaged state file must not hide the unit: keep it with the fields that parsed.
        }
    }
    flush();
    return units;
}

}  // namespace pdctl::runtime
