#pragma once
// The weight phase of a simulated server, against real files: when --model-path names a directory
// on this host, every regular file under it is read once, as a server's loader reads its shards, so a
// start whose files are in the page cache is measurably faster than one that reads them from disk.

#include <cstdint>
#include <string>

#include "sim/process.hpp"

namespace pdsim {

struct WeightRead {
    bool found = false;  // the model path is a directory here
    int files = 0;
    std::uint64_t bytes = 0;
    Millis elapsed{0};
    std::string error;  // a file that could not be read
};

WeightRead read_weight_files(const std::string& model_path);

}  // namespace pdsim
