#pragma once
// The client half of OpenSSH's connection-multiplexing protocol (PROTOCOL.mux in OpenSSH's sources,
// version 4, a "passenger" session): one command over a ControlMaster's socket without starting an
// `ssh` process for it. The master gets the command's stdin, stdout and stderr as file descriptors
// (SCM_RIGHTS) and writes the exit status to the socket. This is what `ssh -o ControlMaster=no` does
// after its start-up, minus the exec of ssh and its config parsing (about 10 ms of CPU per command).

#include <sys/types.h>

#include <chrono>
#include <string>

#include "pdctl/exec/command.hpp"

namespace pdctl::exec::detail {

struct MuxCommand {
    std::string socket;   // the master's ControlPath
    std::string command;  // shell text for the remote login shell, already quoted
    std::string stdin_data;
    int stdin_fd = -1;  // >= 0: this file is the command's stdin instead of stdin_data (not closed here)
    std::chrono::steady_clock::time_point deadline;
    // The session must have opened by then (else not_started): a master from an earlier run whose
    // connection died without a word (the node rebooted, a firewall dropped it) answers on its socket
    // but never opens a session. Unopened, the command was never sent, so it may go to a new master.
    std::chrono::steady_clock::time_point open_deadline = std::chrono::steady_clock::time_point::max();
    const OutputSink* on_output = nullptr;  // each chunk of output as it is read
};

struct MuxOutcome {
    enum class End {
        exit_status,     // the master sent the command's exit status: result.exit_code is it
        no_exit_status,  // the session ended without one: the command died of a signal, or the
                         // master's connection broke (the caller tells them apart)
        timed_out,       // the deadline passed; the session was closed (result.timed_out)
        not_started,     // no session: the master did not answer or refused (`error` says why)
    };
    End end = End::not_started;
    CommandResult result;  // out and err as far as they came; exit_code only with exit_status
    std::string error;     // for not_started
};

// Never throws. At the deadline the socket and the pipes are closed, which makes the master close the
// session's channel (as it does when an `ssh` client is killed).
MuxOutcome run_over_master(const MuxCommand& command);

// Whether a master answers an alive check (MUX_C_ALIVE_CHECK) on `socket` before the deadline. A master
// whose connection broke has unlinked its socket before its sessions see their end, so after a session
// ended without an exit status this tells a command killed by a signal from a lost connection.
bool master_answers(const std::string& socket, std::chrono::steady_clock::time_point deadline);

// The pid the master gives in its answer to the alive check; -1 when it does not answer.
pid_t master_pid(const std::string& socket, std::chrono::steady_clock::time_point deadline);

// Asks the master to end (MUX_C_TERMINATE, what `ssh -O exit` sends): it closes its connection and
// unlinks its socket. Whether it agreed before the deadline.
bool terminate_master(const std::string& socket, std::chrono::steady_clock::time_point deadline);

}  // namespace pdctl::exec::detail
