#pragma once
// What a node's GPUs hold: nvidia-smi's compute processes. `stop` waits until the nodes it stopped
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

}  // namespace pdctl::engine
