#pragma once
// Runs commands on this machine through `/bin/sh -c`, exactly as sshd would run them on a node, so the
// local simulated cluster exercises the same quoting and scripts as a real one.

#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"

namespace pdctl::exec {

class LocalExecutor : public Executor {
  public:
    // `extra_path` is prepended to PATH for every command (the directory holding pdctl and pdsim).
    explicit LocalExecutor(const std::string& extra_path = {});
    CommandResult run(const config::Node& node, const Command& command) override;
    TransferResult upload(const config::Node& node, const std::string& local_path,
                          const std::string& remote_path, int mode,
                          std::chrono::milliseconds timeout) override;

  private:
    std::vector<std::string> environment_;  // KEY=VALUE for every command
};

// Directory of the running executable.
std::string executable_dir();
// Where the local executor finds pdsim: beside pdctl (the build tree), then the install tree's private
// directory (<prefix>/libexec/pdctl beside <prefix>/bin), as a PATH prefix.
std::string local_tools_path();

}  // namespace pdctl::exec
