#pragma once
// One command on an open session (internal): exec channel, stdin, stdout and stderr drained together.

#include <string>

#include "pdctl/exec/executor.hpp"
#include "ssh_session.hpp"

namespace pdctl::exec::detail {

// Runs `script` through the node's login shell (SSH "exec"), writes `stdin_data` then EOF, and collects
// both output streams until the command ends or `deadline` passes (then timed_out is set and the channel
// is abandoned). Throws SshError when the connection fails; SshError::command_started() tells whether
// the command may have run.
// `on_output`, when set, sees each chunk as it is read. `stalled_at`, when set and the deadline passes,
// receives where the command was then (opening the channel, starting it, or how far its streams had
// got), which tells a server that never ran it from a command that ran and went quiet.
CommandResult run_on_session(SshSession& session, const std::string& script, const std::string& stdin_data,
                             util::SteadyClock::time_point deadline, const OutputSink* on_output = nullptr,
                             std::string* stalled_at = nullptr);

}  // namespace pdctl::exec::detail
