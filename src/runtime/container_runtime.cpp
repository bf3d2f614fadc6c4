#include "pdctl/runtime/container_runtime.hpp"

#include <algorithm>
#include <ctime>

#include "embedded/runtime_scripts.hpp"
#include "pdctl/runtime/process_runtime.hpp"

namespace pdctl::runtime {
namespace {

// The scripts are src/runtime/scripts/container_*.sh.

std::vector<std::string> container_script(std::string_view script, const char* name) {
    return {"sh", "-c", std::string(script), name};
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
    command.argv = container_script(scripts::container_start, "pdctl-start");
    const std::string env_file = dir_ + "/" + unit.name + ".env";
    command.argv.insert(command.argv.end(), {dir_, unit.name, spec_.cli, unit.cache.script_text()});
    command.argv.insert(command.argv.end(), {spec_.cli, "run", "-d"});
    if (!options_set_init(spec_.options)) command.argv.emplace_back("--init");
    command.argv.insert(command.argv.end(), {"--name", unit.name});
    if (unit.cache.enabled())
        command.argv.insert(command.argv.end(), {"-v", unit.cache.dir + ":" + unit.cache.mount});
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
    command.argv = container_script(scripts::container_stop, "pdctl-stop");
    command.argv.insert(command.argv.end(),
                        {dir_, unit_name, spec_.cli, std::to_string(spec_.stop_grace_seconds)});
    command.timeout = std::chrono::seconds(spec_.stop_grace_seconds + 60);
    return command;
}

std::optional<exec::Command> ContainerRuntime::rename(const std::string& from, const std::string& to) const {
    exec::Command command;
    command.argv = {spec_.cli, "rename", from, to};
    command.timeout = std::chrono::seconds(30);
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
    command.argv = container_script(scripts::container_log_activity, "pdctl-log-activity");
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
    command.argv = {spec_.cli,    "exec", unit_name, "sh", "-c", std::string(scripts::container_stack),
                    "pdctl-stack"};
    command.argv.insert(command.argv.end(), py_spy.begin(), py_spy.end());
    command.timeout = std::chrono::seconds(30);
    return command;
}

exec::Command ContainerRuntime::inspect(const std::string& cluster) const {
    exec::Command command;
    command.argv = container_script(scripts::container_inspect, "pdctl-inspect");
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

exec::Command image_ids_command(const std::string& cli, const std::vector<std::string>& images) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::container_image_ids), "pdctl-image-ids", cli};
    command.argv.insert(command.argv.end(), images.begin(), images.end());
    command.timeout = std::chrono::seconds(30);
    return command;
}

std::map<std::string, std::string> parse_image_ids(const std::string& output) {
    std::map<std::string, std::string> ids;
    std::size_t at = 0;
    while (at < output.size()) {
        auto end = output.find('\n', at);
        if (end == std::string::npos) end = output.size();
        const std::string line = output.substr(at, end - at);
        at = end + 1;
        const auto space = line.rfind(' ');
        if (space == std::string::npos || space == 0) continue;
        const std::string id = line.substr(space + 1);
        ids[line.substr(0, space)] = id == "-" ? "" : id;
    }
    return ids;
}

}  // namespace pdctl::runtime
