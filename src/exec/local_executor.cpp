#include "pdctl/exec/local_executor.hpp"

#include <filesystem>

#include "child_process.hpp"
#include "pdctl/util/shell_quote.hpp"

namespace pdctl::exec {

std::string executable_dir() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : path.parent_path().string();
}

std::string local_tools_path() {
    const std::filesystem::path here = executable_dir();
    if (here.empty()) return {};
    std::string path = here.string();
    std::error_code ec;
    const auto installed = (here.parent_path() / PDCTL_PRIVATE_DIR).lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) path += ":" + installed.string();
    return path;
}

LocalExecutor::LocalExecutor(const std::string& extra_path) : environment_(detail::environment_copy()) {
    if (extra_path.empty()) return;
    for (auto& item : environment_)
        if (item.rfind("PATH=", 0) == 0) item = "PATH=" + extra_path + ":" + item.substr(5);
}

// Exactly as sshd runs a command on a node: the user's shell (sh here) with the joined argv.
CommandResult LocalExecutor::run(const config::Node& /*node*/, const Command& command) {
    detail::ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", util::join_command(command.argv)};
    spec.environment = &environment_;
    spec.stdin_data = command.stdin_data;
    spec.deadline = std::chrono::steady_clock::now() + command.timeout;
    spec.on_output = &command.on_output;
    return detail::run_child(spec);
}

}  // namespace pdctl::exec
