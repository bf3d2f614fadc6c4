#pragma once
// Internal to the OpenSSH transport (openssh_executor.cpp): the processes and files around its
// masters. The per-run masters are its children, ended with it; the lock and the files serve the
// masters that stay between runs (openssh_masters.hpp).

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace pdctl::exec::detail {

// A fresh private directory (0700) under /tmp for one run's sockets: a socket path may not exceed 107
// bytes, and $TMPDIR can be long. Throws std::runtime_error.
std::string make_private_socket_dir();

// Ends child processes: SIGTERM to all (ssh closes its channels and disconnects), then one shared
// wait, SIGKILL for any still there after 2 s. All at once: one after the other, 64 nodes would cost
// 64 round trips at the end of every run.
void end_processes(const std::vector<pid_t>& pids);

// How a child ended: its exit code, or -1 when a signal ended it or it is still running at the
// deadline (then it is ended). Reaped either way.
int exit_status_within(pid_t pid, std::chrono::steady_clock::time_point deadline);

// Another pdctl connecting the same node at the same moment: flock(2) on the master's NAME.lock makes
// them take turns, so the second finds the first's master instead of starting one of its own. The
// lock goes with its holder, however that ends. Throws std::runtime_error at the deadline.
class MasterLock {
  public:
    MasterLock(const std::string& path, std::chrono::steady_clock::time_point deadline);
    ~MasterLock();  // closing the descriptor releases the lock
    MasterLock(const MasterLock&) = delete;
    MasterLock& operator=(const MasterLock&) = delete;

  private:
    int fd_ = -1;
};

// Written under a temporary name, then renamed: a reader never sees half a file. Throws
// std::runtime_error.
void write_file_atomically(const std::string& path, const std::string& text);

// Holds one permit of a counting semaphore for a scope.
template <class Semaphore>
class Held {
  public:
    explicit Held(Semaphore& semaphore) : semaphore_(semaphore) { semaphore_.acquire(); }
    ~Held() { semaphore_.release(); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

  private:
    Semaphore& semaphore_;
};

}  // namespace pdctl::exec::detail
