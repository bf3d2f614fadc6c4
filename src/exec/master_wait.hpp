#pragma once
// Waiting for a freshly started OpenSSH ControlMaster: ssh links its socket into place once it is
// logged in and listening, or it exits (and says why on stderr). Waited for without polling: inotify
// on the socket's directory and a pidfd for the process wake the caller at once. Polling every few
// milliseconds from one thread per node cost 64 nodes a noticeable share of two cores while the
// handshakes needed them.

#include <sys/types.h>

#include <chrono>
#include <string>

namespace pdctl::exec::detail {

enum class MasterWait { ready, exited, timed_out };

// `pid` is the master, a child of this process; it is not reaped here (the caller's waitpid() tells
// how it ended).
MasterWait wait_for_master(const std::string& socket, pid_t pid,
                           std::chrono::steady_clock::time_point deadline);

}  // namespace pdctl::exec::detail
