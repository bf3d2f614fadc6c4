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
    for (auto& item : environment_) {
        if (item.rfind("PATH=", 0) != 0) continue;
        if (!extra_path.empty()) item = "PATH=" + extra_path + ":" + item.substr(5);
        search_path_ = item.substr(5);
    }
}

// A node's sshd hands the joined command line to the user's shell, which parses the words back and runs
// them as its child. Here that argv is spawned directly: the same program with the same words, one
// process less per command (a start runs hundreds of commands, and creating processes was most of a
// fault-matrix case's CPU: docs/ci.md). The shell's parse of join_command's line is what the quoting
// property test and the SSH suites (real sshd) check. A first word that names no program (a builtin,
// a typo) still goes to `/bin/sh -c`, so it fails the way it would on a node: exit 127 and the shell's
// message.
CommandResult LocalExecutor::run(const config::Node& /*node*/, const Command& command) {
    detail::ChildSpec spec;
    const std::string program =
        command.argv.empty() ? std::string() : detail::find_program_in(command.argv.front(), search_path_);
    if (program.empty()) {
        spec.argv = {"/bin/sh", "-c", util::join_command(command.argv)};
    } else {
        spec.argv = command.argv;
        spec.argv.front() = program;
    }
    spec.environment = &environment_;
    spec.stdin_data = command.stdin_data;
    spec.deadline = std::chrono::steady_clock::now() + command.timeout;
    spec.on_output = &command.on_output;
    return detail::run_child(spec);
}

}  // namespace pdctl::exec
