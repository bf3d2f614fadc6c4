#pragma once
// Where the checkout and the built programs are. The paths are compiled into one small source of each
// test program (build_paths.cpp, kept out of the unity batches), so a clone's own paths stand in that
// file's command line alone and every other test source compiles to the same object in any clone: a
// compiler-cache hit (.ci/compiler-cache) instead of a rebuild of every test batch.

#include <string>

namespace pdctl::testing {

// The checkout's root: profiles/, tests/fixtures/, tests/golden/ ...
const std::string& source_dir();
// The built pdctl and pdsim (the programs that run them only: integration and fault tests).
const std::string& pdctl_binary();
const std::string& pdsim_binary();

}  // namespace pdctl::testing
