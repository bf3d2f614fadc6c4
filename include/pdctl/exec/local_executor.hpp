#pragma once
// Runs commands on this machine with the argv a node's shell would parse out of the command line sshd
// hands it, so the local simulated cluster runs the same scripts with the same arguments as a real one.

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
    std::string search_path_;               // its PATH: where a command's program is found
};

// Directory of the running executable.
std::string executable_dir();
// Where the local executor finds pdsim: beside pdctl (the build tree), then the install tree's private
// directory (<prefix>/libexec/pdctl beside <prefix>/bin), as a PATH prefix.
std::string local_tools_path();

}  // namespace pdctl::exec
