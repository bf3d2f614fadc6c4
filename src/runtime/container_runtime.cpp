#include "pdctl/runtime/container_runtime.hpp"

#include <algorithm>
#include <ctime>

#include "pdctl/runtime/process_runtime.hpp"

namespace pdctl::runtime {
namespace {

// The env file reaches the node on stdin (mode 0600), then `--env-file` hands it to the container:
// secrets never appear in argv. A leftover container of the same name (exited) is removed first.
constexpr const char* kContainerStartScript =
    "dir=$1 unit=$2 cli=$3; shift 3\n"
    "mkdir -p \"$dir\" || exit 1\n"
    "umask 077\n"
    "cat > \"$dir/$unit.env\" || exit 1\n"
    "env_complete \"$dir/$unit.env\" \"$unit\"\n"
    "\"$cli\" rm -f \"$unit\" >/dev/null 2>&1\n"
    "exec \"$@\"\n";

// A container that cannot be removed (the engine refuses, or it stays in "removing" because a process
// in it does not die) fails the stop with exit 70 and the engine's words: it is still there, and
// status must keep showing it.
constexpr const char* kContainerStopScript =
    "dir=$1 unit=$2 cli=$3 grace=$4\n"
    "if \"$cli\" container inspect \"$unit\" >/dev/null 2>&1; then\n"
    "  \"$cli\" stop -t \"$grace\" \"$unit\" >/dev/null 2>&1\n"
    "  if ! err=$(\"$cli\" rm -f \"$unit\" 2>&1 >/dev/null); then\n"
    "    echo \"pdctl: $cli rm -f failed after $cli stop -t $grace: $err\" >&2; exit 70\n"
    "  fi\n"
    "  if \"$cli\" container inspect \"$unit\" >/dev/null 2>&1; then\n"
    "    echo \"pdctl: the container still exists after $cli stop and rm -f (state $(\"$cli\" container "
    "inspect "
    "--format '{{.State.Status}}' \"$unit\"))\" >&2; exit 70\n"
    "  fi\n"
    "  echo \"stopped $unit\"\n"
    "else\n"
    "  echo \"$unit was not running\"\n"
    "fi\n"
    "rm -f \"$dir/$unit.env\"\n";

// One line per unit, as key=value blocks like the process runtime prints, so one parser reads both.
// Fields docker and podman both have. They differ in .Name (docker's starts with '/', removed below)
// and in the format of .State.StartedAt (parse_utc_timestamp reads both).
constexpr const char* kContainerInspectScript =
    "cli=$1 cluster=$2\n"
    "ids=$(\"$cli\" ps -aq --filter \"label=pdctl.cluster=$cluster\") || exit 1\n"
    "[ -n \"$ids\" ] || exit 0\n"
    "now=$(date +%s)\n"
    "\"$cli\" container inspect --format 'unit={{.Name}}\n"
    "state={{.State.Status}}\n"
    "pid={{.State.Pid}}\n"
    "exit_code={{.State.ExitCode}}\n"
    "started_at={{.State.StartedAt}}\n"
    "finished_at={{.State.FinishedAt}}\n"
    "pdctl.cluster={{index .Config.Labels \"pdctl.cluster\"}}\n"
    "pdctl.role={{index .Config.Labels \"pdctl.role\"}}\n"
    "pdctl.rank={{index .Config.Labels \"pdctl.rank\"}}\n"
    "pdctl.node={{index .Config.Labels \"pdctl.node\"}}\n"
    "pdctl.config={{index .Config.Labels \"pdctl.config\"}}\n"
    "' $ids | while IFS= read -r line; do\n"
    "  case $line in unit=/*) line=unit=${line#unit=/};; esac\n"
    "  printf '%s\\n' \"$line\"\n"
    "  case $line in pdctl.config=*) printf 'now=%s\\n\\n' \"$now\";; esac\n"
    "done\n";

// `logs --timestamps` starts every line with the time the engine received it, in UTC: the newest is
// the last write. Both streams, as `logs` shows them.
constexpr const char* kContainerLogActivityScript =
    "cli=$1 unit=$2 n=$3\n"
    "printf 'now=%s\\n\\n' \"$(date +%s)\"\n"
    "exec \"$cli\" logs --timestamps --tail \"$n\" \"$unit\" 2>&1\n";

// Inside the container: its processes are the unit's, pid 1 is the init (--init).
constexpr const char* kContainerStackInner =
    "pid=$(program_pid)\n"
    "[ -n \"$pid\" ] || { echo \"pdctl: no program runs in the container\" >&2; exit 3; }\n"
    "command -v \"$1\" >/dev/null 2>&1 || { echo \"pdctl: $1 is not installed in the container's image\" "
    ">&2; "
    "exit 127; }\n"
    "exec \"$@\" dump --pid \"$pid\" --subprocesses\n";

std::vector<std::string> container_script(const char* body, const char* name) {
    return {"sh", "-c", body, name};
}

// Docker prints 2026-11-29T08:12:03.123456789Z, podman 2026-11-29 08:12:03.123 +0000 UTC; both UTC.
// A container that never started has the zero time (year 1): 0, "unknown".
long long parse_utc_timestamp(const std::string& text) {
    if (text.size() < 19) return 0;
    std::string head = text.substr(0, 19);
    if (head[10] == 'T') head[10] = ' ';
    std::tm tm{};
    if (!::strptime(head.c_str(), "%Y-%m-%d %H:%M:%S", &tm)) return 0;
    const auto epoch = static_cast<long long>(::timegm(&tm));
    return epoch > 0 ? epoch : 0;
}

// The zone of an RFC 3339 time: 0 for "Z" or no zone, else +HH:MM / -HH:MM as seconds east of UTC.
long long utc_offset_seconds(const std::string& text) {
    if (text.size() < 6 || text.back() == 'Z') return 0;
    const auto zone = text.substr(text.size() - 6);
    if ((zone[0] != '+' && zone[0] != '-') || zone[3] != ':') return 0;
    try {
        const long long seconds = std::stoll(zone.substr(1, 2)) * 3600 + std::stoll(zone.substr(4, 2)) * 60;
        return zone[0] == '+' ? seconds : -seconds;
    } catch (const std::exception&) {
        return 0;
    }
}

// `--init` (docker: tini, podman: catatonit) unless the options decide it: an init as PID 1 forwards
// `stop`'s SIGTERM to the program and reaps its children. Without it, a program that has no SIGTERM
// handler ignores the signal as PID 1 and every stop waits out the whole grace period.
bool options_set_init(const std::vector<std::string>& options) {
    for (const auto& option : options)
        if (option == "--init" || option.rfind("--init=", 0) == 0) return true;
    return false;
}

}  // namespace

exec::Command ContainerRuntime::start(const UnitSpec& unit) const {
    exec::Command command;
    command.argv = {"sh", "-c", env_complete_function() + kContainerStartScript, "pdctl-start"};
    const std::string env_file = dir_ + "/" + unit.name + ".env";
    command.argv.insert(command.argv.end(), {dir_, unit.name, spec_.cli});
    command.argv.insert(command.argv.end(), {spec_.cli, "run", "-d"});
    if (!options_set_init(spec_.options)) command.argv.emplace_back("--init");
    command.argv.insert(command.argv.end(), {"--name", unit.name});
    for (const auto& [key, value] : unit_labels(unit))
        command.argv.insert(command.argv.end(), {"--label", key + "=" + value});
    command.argv.insert(command.argv.end(), {"--env-file", env_file});
    command.argv.insert(command.argv.end(), spec_.options.begin(), spec_.options.end());
    command.argv.push_back(spec_.image);
    const auto launch = launch_argv(unit.program);
    command.argv.insert(command.argv.end(), launch.begin(), launch.end());
    command.stdin_data = env_file_content(unit.program.env);
    command.timeout = std::chrono::minutes(2);
    return command;
}

exec::Command ContainerRuntime::stop(const std::string& unit_name) const {
    exec::Command command;
    command.argv = container_script(kContainerStopScript, "pdctl-stop");
    command.argv.insert(command.argv.end(),
                        {dir_, unit_name, spec_.cli, std::to_string(spec_.stop_grace_seconds)});
    command.timeout = std::chrono::seconds(spec_.stop_grace_seconds + 60);
    return command;
}

std::string ContainerRuntime::describe_stop(const std::string& unit_name) const {
    return spec_.cli + " stop -t " + std::to_string(spec_.stop_grace_seconds) + " " + unit_name + "; " +
           spec_.cli + " rm -f " + unit_name;
}

exec::Command ContainerRuntime::logs(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = {spec_.cli, "logs", "--tail", std::to_string(tail_lines), unit_name};
    command.timeout = std::chrono::seconds(20);
    return command;
}

exec::Command ContainerRuntime::log_activity(const std::string& unit_name, int tail_lines) const {
    exec::Command command;
    command.argv = container_script(kContainerLogActivityScript, "pdctl-log-activity");
    command.argv.insert(command.argv.end(), {spec_.cli, unit_name, std::to_string(tail_lines)});
    command.timeout = std::chrono::seconds(20);
    return command;
}

LogActivity ContainerRuntime::parse_log_activity(const std::string& output) const {
    LogActivity activity;
    const auto blank = output.find("\n\n");
    const std::string header = output.substr(0, blank);
    if (header.rfind("now=", 0) == 0) {
        try {
            activity.node_now_epoch = std::stoll(header.substr(4));
        } catch (const std::exception&) {
            // Unknown: the quiet time stays unknown too.
        }
    }
    if (blank == std::string::npos) return activity;
    std::size_t start = blank + 2;
    while (start < output.size()) {
        auto end = output.find('\n', start);
        if (end == std::string::npos) end = output.size();
        std::string line = output.substr(start, end - start);
        start = end + 1;
        // "2026-12-02T03:27:31.123456789Z text" (docker) or "...+00:00 text" (podman).
        const auto space = line.find(' ');
        if (space != std::string::npos && space >= 20 && line[10] == 'T') {
            const auto written =
                parse_utc_timestamp(line.substr(0, space)) - utc_offset_seconds(line.substr(0, space));
            if (written > 0) activity.last_write_epoch = std::max(activity.last_write_epoch, written);
            line.erase(0, space + 1);
        }
        for (auto& piece : split_lines(line)) activity.lines.push_back(std::move(piece));
    }
    return activity;
}

exec::Command ContainerRuntime::python_stack(const std::string& unit_name,
                                             const std::vector<std::string>& py_spy) const {
    exec::Command command;
    command.argv = {spec_.cli,    "exec", unit_name,
                    "sh",         "-c",   program_pid_function() + kContainerStackInner,
                    "pdctl-stack"};
    command.argv.insert(command.argv.end(), py_spy.begin(), py_spy.end());
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ContainerRuntime::inspect(const std::string& cluster) const {
    exec::Command command;
    command.argv = container_script(kContainerInspectScript, "pdctl-inspect");
    command.argv.insert(command.argv.end(), {spec_.cli, cluster});
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::vector<UnitState> ContainerRuntime::parse_inspect(const std::string& output) const {
    auto units = parse_state_blocks(output);
    for (auto& unit : units) {
        if (unit.running) unit.exit_code.clear();  // the engine reports 0 for a container still running
        auto started = unit.labels.find("started_at");
        if (started != unit.labels.end()) {
            unit.started_epoch = parse_utc_timestamp(started->second);
            unit.labels.erase(started);
        }
        // A running (or never finished) container has the zero time: 0, unknown.
        auto finished = unit.labels.find("finished_at");
        if (finished != unit.labels.end()) {
            unit.finished_epoch = unit.running ? 0 : parse_utc_timestamp(finished->second);
            unit.labels.erase(finished);
        }
    }
    return units;
}

}  // namespace pdctl::runtime
