#pragma once
// `pdctl exec`: one command on the selected nodes (or in the selected units' containers) in parallel,
// one answer per node (or node:unit) it ran on.

#include <string>
#include <string_view>
#include <vector>

#include "pdctl/exec/command.hpp"
#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/exec_targets.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

struct ExecAnswer {
    std::string label;  // the node (or node:unit) the output is named by
    std::string node;
    std::string unit;  // "" on the host
    exec::CommandResult result;
};

// 0 when every node ran the command with exit 0; 3 when a node could not be reached; otherwise 13.
ExitCode exec_exit_code(const std::vector<ExecAnswer>& answers);

struct ExecRequest {
    plan::ExecSelection selection;
    std::vector<std::string> argv;
    plan::Duration timeout = std::chrono::seconds(60);  // per node
};

// `exec --stream`: the output as it arrives. Called from the nodes' threads, target by index into
// the labels given first.
class ExecStream {
  public:
    virtual ~ExecStream() = default;
    virtual void begin(const std::vector<std::string>& labels) = 0;
    virtual void output(std::size_t target, bool error_stream, std::string_view chunk) = 0;
    virtual void ended(std::size_t target) = 0;
};

// Runs the command on every selected target at once (util::kEngineFanout at a time).
std::vector<ExecAnswer> run_exec(const Deployment& deployment, const ExecRequest& request,
                                 ExecStream* stream = nullptr);

}  // namespace pdctl::ops
