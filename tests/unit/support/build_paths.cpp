#include "unit/support/build_paths.hpp"

namespace pdctl::testing {

// PDCTL_SOURCE_DIR, PDCTL_BINARY and PDSIM_BINARY are defined for this file alone (tests/CMakeLists.txt).

const std::string& source_dir() {
    static const std::string path = PDCTL_SOURCE_DIR;
    return path;
}

const std::string& pdctl_binary() {
    static const std::string path = PDCTL_BINARY;
    return path;
}

const std::string& pdsim_binary() {
    static const std::string path = PDSIM_BINARY;
    return path;
}

}  // namespace pdctl::testing
