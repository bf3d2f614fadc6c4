#pragma once
// pdctl's host-key policy written as an ssh config file, read first by every `ssh` of a run (`-F`).
// pdctl's `-o` options reach only the ssh it starts; the `ssh -W` that OpenSSH starts for a ProxyJump
// does not see them, but it is given the same `-F` file (OpenSSH's ssh.c passes `-F` on). So the jump
// host's key is checked against pdctl's known_hosts, with BatchMode, exactly like a node's. The
// operator's own config follows by Include, for everything else. Pure: the text, not the file.

#include <string>

#include "pdctl/exec/openssh_executor.hpp"

namespace pdctl::exec {

// The file's text. `home` locates ~/.ssh/config when `options.ssh_config` is empty; then the system
// file /etc/ssh/ssh_config follows too, as ssh reads both without -F. Throws std::invalid_argument
// for a path an ssh config cannot quote (a double quote or a line break in it).
std::string openssh_policy_config(const OpenSshOptions& options, const std::string& home);

}  // namespace pdctl::exec
