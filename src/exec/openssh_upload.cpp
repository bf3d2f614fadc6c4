// OpenSshExecutor::upload: the file as the stdin of a script on the node, over the node's master.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "embedded/exec_scripts.hpp"
#include "pdctl/exec/openssh_executor.hpp"
#include "pdctl/util/shell_quote.hpp"

namespace pdctl::exec {

TransferResult OpenSshExecutor::upload(const config::Node& node, const std::string& local_path,
                                       const std::string& remote_path, int mode,
                                       std::chrono::milliseconds timeout) {
    TransferResult result;
    const int fd = ::open(local_path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) {
        result.error = node.name + ": cannot read " + local_path + ": " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return result;
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const std::string script =
        util::join_command({"sh", "-c", std::string(scripts::upload), "pdctl-upload", remote_path,
                            fmt::format("{:o}", mode), std::to_string(size)});
    const auto answer = run_script_with_stdin_file(node, script, fd, timeout);
    ::close(fd);
    if (!answer.transport_error.empty()) {
        result.error = answer.transport_error;
        result.transport_failed = true;
    } else if (answer.timed_out) {
        result.error = fmt::format("{}: uploading {} timed out after {} s", node.name, remote_path,
                                   std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
    } else if (answer.exit_code != 0) {
        const auto err = answer.err.substr(0, answer.err.find('\n'));
        result.error = fmt::format("{}: cannot write {}: {}", node.name, remote_path,
                                   err.empty() ? fmt::format("exit {}", answer.exit_code) : err);
    } else {
        result.bytes = size;
    }
    return result;
}

}  // namespace pdctl::exec
