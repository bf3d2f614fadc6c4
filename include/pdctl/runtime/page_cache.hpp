#pragma once
// `start --prewarm`: a node reads its model files into the page cache before its ranks load them, and
// says how much stayed resident (src/runtime/scripts/prewarm.sh: `fincore` of util-linux) and how much
// memory it has: a model larger than the memory evicts its own first files while it reads the last,
// and prewarming cannot help. Pure but for the command it builds.

#include <cstdint>
#include <string>
#include <vector>

#include "pdctl/exec/command.hpp"

namespace pdctl::runtime {

struct PrewarmedDir {
    std::string dir;
    bool present = false;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::int64_t resident = -1;  // -1: the node has no fincore
    double seconds = 0;
};

struct NodePrewarm {
    std::uint64_t mem_total = 0;
    std::uint64_t mem_available = 0;  // before the reading
    std::vector<PrewarmedDir> dirs;
};

// Reads `dirs` with `readers` files at a time (a parallel file system wants several).
exec::Command prewarm_command(const std::vector<std::string>& dirs, int readers = 8);
NodePrewarm parse_prewarm(const std::string& output);

}  // namespace pdctl::runtime
