#pragma once
// One node's GPU compute processes, asked on their own (not in the whole probe): `stop` polls it until
// the GPUs are released, and the start preflight reads it to name a foreign process.

#include <string>
#include <vector>

#include "pdctl/doctor/facts.hpp"
#include "pdctl/exec/command.hpp"

namespace pdctl::doctor {

struct GpuApps {
    bool nvidia_smi = false;  // false: the node has none (the simulated cluster); nothing else is known
    std::vector<ComputeApp> apps;
    std::string
        error;  // the query failed: the transport's or nvidia-smi's words, or the line that did not parse
};

// `nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv` when the node has it.
exec::Command gpu_apps_command();
GpuApps read_gpu_apps(const exec::CommandResult& answer);

// "pid 432 python3 19592 MiB"
std::string describe(const ComputeApp& app);

}  // namespace pdctl::doctor
