#include "pdctl/runtime/process_runtime.hpp"

#include <sstream>

#include "embedded/runtime_scripts.hpp"

namespace pdctl::runtime {
namespace {

// The scripts are src/runtime/scripts/process_*.sh: fixed text, every value a positional parameter
// ("$1", "$@"), so no config value is ever parsed by the shell.

std::string labels_text(const std::map<std::string, std::string>& labels) {
    std::string out;
    for (const auto& [key, value] : labels) {
        if (!out.empty()) out += '\n';
        out += key + "=" + value;
    }
    return out;
}

std::vector<std::string> process_script(std::string_view script, const char* name) {
    return {"sh", "-c", std::string(script), name};
}

}  // namespace

std::vector<std::string> launch_argv(const ProgramSpec& program) {
    if (program.bootstrap.empty()) return program.argv;
    // src/runtime/scripts/bootstrap.sh: BOOTSTRAP runs first, as a parameter, and a failure stops the unit.
    std::vector<std::string> argv = {"sh", "-c", std::string(scripts::bootstrap), "pdctl-bootstrap",
                                     program.bootstrap};
    argv.insert(argv.end(), program.argv.begin(), program.argv.end());
    return argv;
}

exec::Command ProcessRuntime::start(const UnitSpec& unit) const {
    exec::Command command;
    command.argv = process_script(scripts::process_start, "pdctl-start");
    command.argv.insert(command.argv.end(),
                        {dir_, unit.name, labels_text(unit_labels(unit)), unit.cache.script_text()});
    const auto launch = launch_argv(unit.program);
    command.argv.insert(command.argv.end(), launch.begin(), launch.end());
    command.stdin_data = env_file_content(unit.program.env);
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ProcessRuntime::stop(const std::string& unit_name) const {
    exec::Command command;
    command.argv = process_script(scripts::process_stop, "pdctl-stop");
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
    command.argv = {"sh",
                    "-c",
                    std::string(scripts::process_log_activity),
                    "pdctl-log-activity",
                    dir_,
                    unit_name,
                    std::to_string(tail_lines)};
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
    command.argv = {"sh", "-c", std::string(scripts::process_stack), "pdctl-stack", dir_, unit_name};
    command.argv.insert(command.argv.end(), py_spy.begin(), py_spy.end());
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ProcessRuntime::inspect(const std::string& /*cluster: the directory is per cluster*/) const {
    exec::Command command;
    command.argv = process_script(scripts::process_inspect, "pdctl-inspect");
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
            else if (key == "age")
                current.age_seconds = value.empty() ? -1 : std::stoll(value);
            else if (key == "now")
                current.node_now_epoch = value.empty() ? 0 : std::stoll(value);
            else if (key == "started")
                current.started_epoch = std::stoll(value);
            else if (key == "finished")
                current.finished_epoch = value.empty() ? 0 : std::stoll(value);
            else if (key == "scheduler")
                current.scheduler = value;
            else if (key == "image_id")
                current.image_id = value;
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
