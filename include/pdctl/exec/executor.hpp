#pragma once
// How pdctl runs a command on a node. Implementations: LocalExecutor (this machine, for the simulated
// cluster), SshExecutor (libssh2), RecordingExecutor (tests). Commands are argv; the executor turns them
// into shell text with util::join_command(), the single quoting function.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/exec/command.hpp"

namespace pdctl::exec {

struct TransferResult {
    std::string error;  // empty = the whole file is at the remote path with its mode
    std::uint64_t bytes = 0;
    bool transport_failed = false;  // the node could not be reached (or the connection broke)
    bool ok() const { return error.empty(); }
};

class Executor {
  public:
    virtual ~Executor() = default;
    // Runs `command` on `node`. Never throws for remote failures: they are in the result.
    virtual CommandResult run(const config::Node& node, const Command& command) = 0;

    // Streams `local_path` into exactly `remote_path` in chunks (never the whole file in memory): created
    // 0600, given `mode` once complete. No rename: a caller that must never expose a partial file uploads
    // to a temporary name and renames it (push/ does, after checking the sha256 on the node). The
    // directory must exist. A partial file is removed when the upload fails. The default refuses.
    virtual TransferResult upload(const config::Node& node, const std::string& local_path,
                                  const std::string& remote_path, int mode,
                                  std::chrono::milliseconds timeout);
};

}  // namespace pdctl::exec
