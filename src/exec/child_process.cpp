#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>

namespace pdctl::exec::detail {
namespace {

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

// argv and envp as execve() wants them, prepared before the child exists: only async-signal-safe work
// may happen in it before the exec.
struct ExecArgs {
    std::vector<char*> argv;
    std::vector<char*> envp;
    ExecArgs(const std::vector<std::string>& args, const std::vector<std::string>& environment) {
        for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
        envp.push_back(nullptr);
    }
};

// Child side of spawn_background's fork(): wire 0/1/2, start a new process group (so a timeout can kill
// everything the command started, and a Ctrl-C at the terminal reaches pdctl, which decides, not the child),
// exec.
[[noreturn]] void exec_child(int in, int out, int err, const ExecArgs& args) {
    ::setpgid(0, 0);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::close_range(3, ~0U, 0);
    ::execve(args.argv[0], args.argv.data(), args.envp.data());
    ::_exit(127);
}

// run_child's child: stdin, stdout and stderr from the given fds, every other fd closed, its own
// process group (as exec_child does), started with posix_spawn. glibc's posix_spawn is a clone that
// shares pdctl's memory until the exec (vfork-like), where fork() copied pdctl's page tables for every
// command: 2.5 ms per fork in the test build, 7 ms under ASan (strace -T, a fault-matrix case), which
// spawns hundreds per start. Returns 0 or the errno of the spawn or of the exec.
int spawn_in_own_group(int in, int out, int err, const ExecArgs& args, pid_t* pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (const int error = ::posix_spawn_file_actions_init(&actions)) return error;
    if (const int error = ::posix_spawnattr_init(&attributes)) {
        ::posix_spawn_file_actions_destroy(&actions);
        return error;
    }
    int error = ::posix_spawn_file_actions_adddup2(&actions, in, 0);
    if (!error) error = ::posix_spawn_file_actions_adddup2(&actions, out, 1);
    if (!error) error = ::posix_spawn_file_actions_adddup2(&actions, err, 2);
    if (!error) error = ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (!error) error = ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    if (!error) error = ::posix_spawnattr_setpgroup(&attributes, 0);
    if (!error)
        error = ::posix_spawn(pid, args.argv[0], &actions, &attributes, args.argv.data(), args.envp.data());
    ::posix_spawnattr_destroy(&attributes);
    ::posix_spawn_file_actions_destroy(&actions);
    return error;
}

}  // namespace

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

std::vector<std::string> environment_copy() {
    std::vector<std::string> copy;
    for (char** entry = environ; *entry; ++entry) copy.emplace_back(*entry);
    return copy;
}

std::string find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    return find_program_in(name, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

std::string find_program_in(const std::string& name, const std::string& search_path) {
    if (name.find('/') != std::string::npos) return name;
    std::istringstream dirs(search_path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        struct stat info {};
        if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

CommandResult run_child(const ChildSpec& spec) {
    CommandResult result;
    Pipe in, out, err;
    if (!in.open() || !out.open() || !err.open()) {
        result.transport_error = std::string("pipe: ") + std::strerror(errno);
        close_fd(in.read_end), close_fd(in.write_end), close_fd(out.read_end), close_fd(out.write_end);
        return result;
    }
    const ExecArgs args(spec.argv, *spec.environment);
    const bool stdin_from_file = spec.stdin_fd >= 0;
    pid_t pid = -1;
    if (const int error = spawn_in_own_group(stdin_from_file ? spec.stdin_fd : in.read_end, out.write_end,
                                             err.write_end, args, &pid)) {
        result.transport_error = "cannot run " + spec.argv.front() + ": " + std::strerror(error);
        for (int* fd :
             {&in.read_end, &in.write_end, &out.read_end, &out.write_end, &err.read_end, &err.write_end})
            close_fd(*fd);
        return result;
    }

    close_fd(in.read_end);
    close_fd(out.write_end);
    close_fd(err.write_end);
    ::fcntl(in.write_end, F_SETFL, O_NONBLOCK);

    std::size_t stdin_written = 0;
    if (stdin_from_file || spec.stdin_data.empty()) close_fd(in.write_end);

    std::array<char, 65536> buffer{};
    while (out.read_end >= 0 || err.read_end >= 0) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= spec.deadline) {
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
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(spec.deadline - now).count();
        const int ready = ::poll(fds.data(), count, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) break;
        for (nfds_t i = 0; i < count; ++i) {
            if (fds[i].revents == 0) continue;
            int& fd = *owners[i];
            if (&fd == &in.write_end) {
                const auto rest = spec.stdin_data.size() - stdin_written;
                const ssize_t n = write_without_sigpipe(fd, spec.stdin_data.data() + stdin_written, rest);
                if (n > 0) stdin_written += static_cast<std::size_t>(n);
                if (n < 0 && errno != EAGAIN) close_fd(fd);
                if (stdin_written == spec.stdin_data.size()) close_fd(fd);
                continue;
            }
            const ssize_t n = ::read(fd, buffer.data(), buffer.size());
            if (n > 0) {
                const bool error_stream = &fd != &out.read_end;
                (error_stream ? result.err : result.out).append(buffer.data(), static_cast<std::size_t>(n));
                if (spec.on_output && *spec.on_output)
                    (*spec.on_output)(error_stream,
                                      std::string_view(buffer.data(), static_cast<std::size_t>(n)));
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

pid_t spawn_background(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       const std::string& stderr_path) {
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) return -1;
    const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (err_fd < 0) {
        ::close(null_fd);
        return -1;
    }
    const ExecArgs args(argv, environment);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Ends with pdctl, however pdctl ends (even SIGKILL): nothing of a run may outlive it.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);  // pdctl ended before prctl() took effect
        exec_child(null_fd, null_fd, err_fd, args);
    }
    const int fork_errno = errno;
    ::close(null_fd);
    ::close(err_fd);
    errno = fork_errno;
    return pid;
}

}  // namespace pdctl::exec::detail
