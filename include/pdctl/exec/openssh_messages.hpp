#pragma once
// What the system's `ssh` wrote when it could not connect, said the way pdctl's libssh2 transport
// says it (docs/ssh.md "Errors"): the cause first, then what to do, then ssh's own words.

#include <string>

namespace pdctl::exec {

struct OpenSshFailureContext {
    std::string user;
    std::string host;  // as ssh connected to it (ssh -G HostName)
    int port = 22;
    std::string known_hosts;  // the file ssh was told to check against
};

// `stderr_text` is everything ssh printed (LogLevel ERROR); never empty in the answer.
std::string describe_openssh_failure(const std::string& stderr_text, const OpenSshFailureContext& context);

}  // namespace pdctl::exec
