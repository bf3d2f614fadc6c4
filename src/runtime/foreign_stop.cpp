#include "pdctl/runtime/foreign_stop.hpp"

#include "embedded/runtime_scripts.hpp"

namespace pdctl::runtime {
namespace {

exec::Command foreign_stop(std::vector<std::string> args, int grace_seconds) {
    exec::Command command;
    command.argv = {"sh", "-c", std::string(scripts::foreign_stop), "pdctl-takeover-stop"};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    // The grace, SIGKILL's 10 s, and the engine's own answer.
    command.timeout = std::chrono::seconds(grace_seconds + 40);
    return command;
}

}  // namespace

exec::Command foreign_container_stop_command(const std::string& node_dir, const std::string& cli,
                                             const std::string& id, const std::string& name,
                                             int grace_seconds) {
    return foreign_stop({node_dir, std::to_string(grace_seconds), "container", cli, id, name}, grace_seconds);
}

exec::Command foreign_process_stop_command(const std::string& node_dir, int pid, int grace_seconds) {
    return foreign_stop({node_dir, std::to_string(grace_seconds), "process", std::to_string(pid)},
                        grace_seconds);
}

}  // namespace pdctl::runtime
