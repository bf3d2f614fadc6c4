#include "pdctl/exec/local_executor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include "pdctl/util/shell_quote.hpp"

namespace pdctl::exec {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
    int read_end = -1;
    int write_end = -1;
    bool open() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) return false;
        read_end = fds[0];
        write_end = fds[1];
        return true;
    }
};

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// A command that exits without reading all of its stdin (a lock script that finds the lock taken)
// closes the pipe under the write. The write must then fail with EPIPE, not kill the process that
// runs the executor with SIGPIPE: pdctl ignores SIGPIPE, but a test binary or any other embedder may
// not. So SIGPIPE is blocked for this thread around the write, and the one the write raised is taken
// off the pending set again (unless one was pending already) before the old mask comes back.
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size) {
    sigset_t sigpipe_only;
    sigset_t old_mask;
    sigset_t pending;
    ::sigemptyset(&sigpipe_only);
    ::sigaddset(&sigpipe_only, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &sigpipe_only, &old_mask);
    ::sigpending(&pending);
    const bool was_pending = ::sigismember(&pending, SIGPIPE) == 1;
    const ssize_t written = ::write(fd, data, size);
    const int write_errno = errno;
    if (written < 0 && write_errno == EPIPE && !was_pending) {
        const timespec no_wait{};
        while (::sigtimedwait(&sigpipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    errno = write_errno;
    return written;
}

std::string signal_name(int sig) {
    const char* name = ::sigabbrev_np(sig);
    return name ? std::string("SIG") + name : std::to_string(sig);
}

// Child side of fork(): wire the pipes to 0/1/2, start a new process group (so a timeout can kill
// everything the command started), and exec the shell. Only async-signal-safe calls here.
[[noreturn]] void exec_child(const Pipe& in, const Pipe& out, const Pipe& err, const std::string& script,
                             char* const* envp) {
    ::setpgid(0, 0);
    ::dup2(in.read_end, 0);
    ::dup2(out.write_end, 1);
    ::dup2(err.write_end, 2);
    ::close_range(3, ~0U, 0);
    const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
    ::execve("/bin/sh", const_cast<char* const*>(argv), envp);
    ::_exit(127);
}

}  // namespace

std::string executable_dir() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : path.parent_path().string();
}

LocalExecutor::LocalExecutor(const std::string& extra_path) {
    // Copied once: setenv() from several engine threads would race with getenv().
    for (char** entry = environ; *entry; ++entry) {
        std::string item(*entry);
        if (!extra_path.empty() && item.rfind("PATH=", 0) == 0)
            item = "PATH=" + extra_path + ":" + item.substr(5);
        environment_.push_back(std::move(item));
    }
}

CommandResult LocalExecutor::run(const config::Node& /*node*/, const Command& command) {
    CommandResult result;
    Pipe in, out, err;
    if (!in.open() || !out.open() || !err.open()) {
        result.transport_error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    const std::string script = util::join_command(command.argv);
    // Prepared before fork(): only async-signal-safe work may follow it in the child.
    std::vector<char*> envp;
    for (const auto& entry : environment_) envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
        result.transport_error = std::string("fork: ") + std::strerror(errno);
        return result;
    }
    if (pid == 0) exec_child(in, out, err, script, envp.data());

    close_fd(in.read_end);
    close_fd(out.write_end);
    close_fd(err.write_end);
    ::fcntl(in.write_end, F_SETFL, O_NONBLOCK);

    const auto deadline = Clock::now() + command.timeout;
    std::size_t stdin_written = 0;
    if (command.stdin_data.empty()) close_fd(in.write_end);

    std::array<char, 65536> buffer{};
    while (out.read_end >= 0 || err.read_end >= 0) {
        const auto now = Clock::now();
        if (now >= deadline) {
            result.timed_out = true;
            ::kill(-pid, SIGKILL);
            break;
        }
        std::array<pollfd, 3> fds{};
        nfds_t count = 0;
        int* owners[3];
        auto watch = [&](int& fd, short events) {
            if (fd < 0) return;
            fds[count] = pollfd{fd, events, 0};
            owners[count++] = &fd;
        };
        watch(out.read_end, POLLIN);
        watch(err.read_end, POLLIN);
        watch(in.write_end, POLLOUT);
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        const int ready = ::poll(fds.data(), count, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) break;
        for (nfds_t i = 0; i < count; ++i) {
            if (fds[i].revents == 0) continue;
            int& fd = *owners[i];
            if (&fd == &in.write_end) {
                const auto rest = command.stdin_data.size() - stdin_written;
                const ssize_t n = write_without_sigpipe(fd, command.stdin_data.data() + stdin_written, rest);
                if (n > 0) stdin_written += static_cast<std::size_t>(n);
                if (n < 0 && errno != EAGAIN) close_fd(fd);
                if (stdin_written == command.stdin_data.size()) close_fd(fd);
                continue;
            }
            const ssize_t n = ::read(fd, buffer.data(), buffer.size());
            if (n > 0) {
                (&fd == &out.read_end ? result.out : result.err)
                    .append(buffer.data(), static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EAGAIN) {
                close_fd(fd);
            }
        }
    }
    close_fd(in.write_end);
    close_fd(out.read_end);
    close_fd(err.read_end);

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (result.timed_out) return result;
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signal = signal_name(WTERMSIG(status));
        result.exit_code = 128 + WTERMSIG(status);
    }
    return result;
}

}  // namespace pdctl::exec
