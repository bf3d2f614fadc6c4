#pragma once
// The OpenSSH masters that outlive a pdctl run (ControlPersist): their per-user directory and how
// they are found and closed. A master lives in DIR as NAME.sock (its control socket), NAME.log (its
// errors, `ssh -E`), NAME.dest (the node it reaches, for `pdctl ssh close`) and NAME.lock (held while
// one pdctl starts or replaces it, so that two runs at once never start two masters for one node).
// Behaviour and limits: docs/ssh.md ("Masters that stay").

#include <chrono>
#include <string>
#include <vector>

namespace pdctl::exec {

// PDCTL_SSH_PERSIST's value: how long a master stays after its last session. Seconds ("60"), or with
// a unit ("90s", "5m", "1h"); "0" ends the masters with each run. Throws std::invalid_argument saying
// what is accepted.
std::chrono::seconds parse_ssh_persist(const std::string& value);

// /tmp/pdctl-ssh-<uid>: under /tmp because a socket path may not exceed 107 bytes.
std::string default_control_dir();

// PDCTL_SSH_CONTROL_DIR, else default_control_dir(): where the binary keeps its masters.
std::string control_dir_from_environment();

// Creates DIR (0700) if needed and checks that it is safe to keep sockets in: a directory, not a
// symbolic link, owned by this user, no access for anyone else, and short enough for a socket path.
// Throws std::runtime_error naming the directory and what to do.
void prepare_control_dir(const std::string& dir);

// The stable file name of a master: the same connection (ssh config text, destination arguments)
// gives the same name in every run, so a later run finds the master an earlier one left.
std::string master_name(const std::string& connection);

struct ClosedMaster {
    std::string destination;   // from NAME.dest, e.g. "n5 (10.77.0.5:22)"; the socket's name without it
    bool was_running = false;  // false: a socket left by a master that died (removed)
};

// Ends every master in DIR (the mux "terminate" request) and removes the sockets of masters that no
// longer answer. A missing DIR has none. Throws std::runtime_error for a DIR prepare_control_dir
// refuses.
std::vector<ClosedMaster> close_masters_in(const std::string& dir);

}  // namespace pdctl::exec
