#pragma once
// Entry points of the programs pdsim stands in for. Each parses the real program's flags
// (UsageError on a command-line mistake) and then never returns: the process ends by a signal
// (status 0) or a fatal error (status 1).

#include <span>
#include <string>

namespace pdsim {

[[noreturn]] void run_sglang_server(std::span<const std::string> argv);  // sglang.launch_server
// sglang_router.launch_router, or `smg launch` (SMG's list carries each worker's status).
[[noreturn]] void run_router(std::span<const std::string> argv, bool smg);
[[noreturn]] void run_mooncake_master(std::span<const std::string> argv);  // mooncake_master

}  // namespace pdsim
