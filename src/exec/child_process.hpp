#pragma once
// Runs a program on this machine as a child process with a deadline: stdin fed from a string or a
// file, stdout and stderr read together (poll), the child's whole process group killed at the
// deadline. Shared by the local executor (`/bin/sh -c SCRIPT`) and the OpenSSH transport (`ssh ...`).

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"

namespace pdctl::exec::detail {

struct ChildSpec {
    std::vector<std::string> argv;                          // argv[0] is an absolute path: no PATH search
    const std::vector<std::string>* environment = nullptr;  // KEY=VALUE; required
    std::string stdin_data;                                 // written, then stdin is closed
    int stdin_fd = -1;  // >= 0: the child's stdin instead (a file); not closed here
    std::chrono::steady_clock::time_point deadline;
    const OutputSink* on_output = nullptr;  // each chunk of output as it is read
};

// exit_code/signal, out, err, timed_out; transport_error only when no child could be started.
CommandResult run_child(const ChildSpec& spec);

// Starts argv in the background (own process group, stdin and stdout /dev/null, stderr appended to
// `stderr_path`); -1 with errno set when it could not be started. The caller reaps it. The child gets
// SIGTERM when the calling *thread* ends (PR_SET_PDEATHSIG follows the thread that forked), so call it
// from a thread that lives as long as the child should.
pid_t spawn_background(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                       const std::string& stderr_path);

// The environment of this process, copied once (setenv() from other threads would race).
std::vector<std::string> environment_copy();

// `name` looked up in PATH ("ssh" → "/usr/bin/ssh"); a name with a '/' is returned as it is; empty
// when not found.
std::string find_program(const std::string& name);
// The same in `search_path`, a PATH value (e.g. the one a child's environment will have).
std::string find_program_in(const std::string& name, const std::string& search_path);

std::string signal_name(int sig);

// write(2) to a pipe whose reader may be gone: EPIPE instead of a SIGPIPE for the process.
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size);

}  // namespace pdctl::exec::detail
