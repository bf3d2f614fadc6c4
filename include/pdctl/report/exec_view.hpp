#pragma once
// `pdctl exec`'s output: identical output folded under the nodes that printed it (as `dshbak -c` and
// `clush -b` do), then each exit code with its nodes; or one JSON object per node.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::report {

struct ExecAnswer {
    std::string label;  // the node (or node:unit) the output is named by
    std::string node;
    std::string unit;  // "" on the host
    exec::CommandResult result;
};

struct OutputGroup {
    std::vector<std::string> labels;  // in the answers' order
    std::string text;                 // stdout, then stderr, as printed
};

// The answers that ran (transport failures left out), folded by identical text, biggest group first
// (ties: first appearance).
std::vector<OutputGroup> group_outputs(const std::vector<ExecAnswer>& answers);

std::string render_exec_text(const std::vector<ExecAnswer>& answers);
// The last line of render_exec_text: each outcome with its nodes ("exit 0: n1–n7 · exit 4: n8"). What
// `exec --stream` prints after the lines it streamed.
std::string render_exec_outcomes(const std::vector<ExecAnswer>& answers);
nlohmann::json exec_to_json(const std::vector<ExecAnswer>& answers);

// 0 when every node ran the command with exit 0; 3 when a node could not be reached; otherwise 13.
ExitCode exec_exit_code(const std::vector<ExecAnswer>& answers);

}  // namespace pdctl::report
