#include "master_wait.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <thread>

#include "pdctl/util/durations.hpp"
#include "unique_fd.hpp"

namespace pdctl::exec::detail {

namespace {

// Without inotify or a pidfd (an old kernel, a sandbox), wake this often instead.
constexpr std::chrono::milliseconds kFallbackInterval{20};

// Through syscall(): glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage for C++.
int open_pidfd(pid_t pid) {
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

bool socket_in_place(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

// True once the child has ended (WNOWAIT: it stays for the caller's waitpid()).
bool has_exited(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

void drain(int fd) {
    std::array<char, 4096> events{};
    while (::read(fd, events.data(), events.size()) > 0) {
    }
}

}  // namespace

MasterWait wait_for_master(const std::string& socket, pid_t pid, util::SteadyClock::time_point deadline) {
    const std::string dir = socket.substr(0, socket.rfind('/'));
    const UniqueFd changes(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    const bool watching =
        changes.get() >= 0 && ::inotify_add_watch(changes.get(), dir.c_str(), IN_CREATE | IN_MOVED_TO) >= 0;
    const UniqueFd exit_fd(open_pidfd(pid));
    // The watch exists before the first look, so a socket linked after that look wakes the poll.
    while (true) {
        if (socket_in_place(socket)) return MasterWait::ready;
        if (has_exited(pid)) return MasterWait::exited;
        const auto now = util::SteadyClock::now();
        if (now >= deadline) return MasterWait::timed_out;
        auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        if (!watching || exit_fd.get() < 0) wait = std::min(wait, kFallbackInterval);
        std::array<pollfd, 2> fds{};
        nfds_t count = 0;
        if (watching) fds[count++] = pollfd{changes.get(), POLLIN, 0};
        if (exit_fd.get() >= 0) fds[count++] = pollfd{exit_fd.get(), POLLIN, 0};
        const int ready = ::poll(fds.data(), count, static_cast<int>(std::max<long long>(1, wait.count())));
        if (ready < 0 && errno != EINTR) std::this_thread::sleep_for(kFallbackInterval);  // never spin
        if (watching) drain(changes.get());
    }
}

}  // namespace pdctl::exec::detail
