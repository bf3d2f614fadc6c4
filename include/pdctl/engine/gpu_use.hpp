#pragma once
// What the engine asks of the nodes beyond its units: what their GPUs hold (nvidia-smi's compute
// processes), and the start preflight. `stop` waits until the nodes it stopped
// sglang units on show none, so "stopped" means the GPUs are free for the next start. The query lives
// outside engine/ (doctor/gpu_use.cpp runs and parses nvidia-smi); the engine takes it as a function.

#include <functional>
#include <string>
#include <vector>

#include "pdctl/config/model.hpp"

namespace pdctl::engine {

struct GpuUse {
    bool checked = false;              // false: the node has no nvidia-smi (the simulated cluster)
    std::vector<std::string> holders;  // "pid 432 python3 19592 MiB", one per compute process
    std::string error;                 // the query failed: the transport's or nvidia-smi's words
};

using GpuUseQuery = std::function<GpuUse(const config::Node& node)>;

// The start preflight's answer for the stages about to start (doctor/preflight.cpp runs it).
struct PreflightAnswer {
    std::vector<std::string> problems;  // "n6: GPUs on n6 are busy: ...": each stops the start
    std::vector<std::string> notes;     // what was not checked, and why
    int nodes = 0;
};
using Preflight = std::function<PreflightAnswer(const std::vector<std::string>& roles)>;

}  // namespace pdctl::engine
