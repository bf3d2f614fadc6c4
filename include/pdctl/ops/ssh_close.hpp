#pragma once
// `pdctl ssh close`: ends the OpenSSH masters pdctl keeps between runs (docs/ssh.md). Needs no cluster
// file: it is for the operator's machine, whichever clusters its masters reach.

#include <string>
#include <vector>

#include "pdctl/exec/openssh_masters.hpp"

namespace pdctl::ops {

struct ClosedMasters {
    std::string control_dir;  // PDCTL_SSH_CONTROL_DIR, else the default
    std::vector<exec::ClosedMaster> closed;
};

// Every master in this binary's control directory. Throws Failure (usage) for a directory that may not
// hold sockets (exec::prepare_control_dir says why).
ClosedMasters close_ssh_masters();

}  // namespace pdctl::ops
