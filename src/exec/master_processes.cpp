#include "master_processes.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "pdctl/util/durations.hpp"

namespace pdctl::exec::detail {

namespace {

// Spelt out, not chrono literals: cppcheck 2.10 cannot parse `10s`.
constexpr std::chrono::seconds kMasterExitWait{2};
constexpr std::chrono::milliseconds kPollInterval{2};
constexpr std::chrono::milliseconds kLockPollInterval{20};

}  // namespace

std::string make_private_socket_dir() {
    std::string pattern = "/tmp/pdctl-ssh-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error(std::string("cannot create a directory for the SSH control sockets: ") +
                                 std::strerror(errno));
    return pattern;
}

void end_processes(const std::vector<pid_t>& pids) {
    for (const pid_t pid : pids) ::kill(pid, SIGTERM);
    const auto deadline = util::SteadyClock::now() + kMasterExitWait;
    std::vector<pid_t> left = pids;
    while (!left.empty()) {
        std::erase_if(left, [](pid_t pid) {
            int status = 0;
            return ::waitpid(pid, &status, WNOHANG) != 0;  // ended (or not ours to wait for)
        });
        if (left.empty()) return;
        if (util::SteadyClock::now() >= deadline) {
            for (const pid_t pid : left) {
                ::kill(pid, SIGKILL);
                int status = 0;
                ::waitpid(pid, &status, 0);
            }
            return;
        }
        std::this_thread::sleep_for(kPollInterval);
    }
}

int exit_status_within(pid_t pid, util::SteadyClock::time_point deadline) {
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (util::SteadyClock::now() >= deadline) {
            end_processes({pid});
            return -1;
        }
        std::this_thread::sleep_for(kPollInterval);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

MasterLock::MasterLock(const std::string& path, util::SteadyClock::time_point deadline) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const std::string why = std::strerror(errno);
            ::close(fd_);
            throw std::runtime_error("cannot lock " + path + ": " + why);
        }
        if (util::SteadyClock::now() >= deadline) {
            ::close(fd_);
            throw std::runtime_error(
                "another pdctl has been connecting to this node for too long (it holds " + path + ")");
        }
        std::this_thread::sleep_for(kLockPollInterval);
    }
}

MasterLock::~MasterLock() {
    ::close(fd_);
}

void write_file_atomically(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp" + std::to_string(::getpid());
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
    out.close();
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) throw std::runtime_error("cannot write " + path + ": " + error.message());
}

}  // namespace pdctl::exec::detail
