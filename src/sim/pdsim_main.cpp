// pdsim: stands in for the GPU programs of a PD deployment in tests and in the local demo.
//   pdsim [-m] sglang.launch_server <flags>
//   pdsim [-m] sglang_router.launch_router <flags>
//   pdsim sglang serve <flags> | pdsim smg launch <flags>
//   pdsim [-m] mooncake_master <flags>
//   pdsim py-spy dump --pid PID      (the stand-in py-spy: the rank's current Python stack)
// Behaviour and test knobs: docs/pdsim.md.

#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "sim/args.hpp"
#include "sim/log.hpp"
#include "sim/process.hpp"
#include "sim/programs.hpp"
#include "sim/stack_frames.hpp"

namespace {

constexpr const char* kUsage =
    "usage: pdsim [-m] PROGRAM [FLAGS...]\n"
    "PROGRAM is one of:\n"
    "  sglang.launch_server          an SGLang server node (prefill, decode or plain)\n"
    "  sglang serve                  the same, as SGLang's `sglang serve` entry point\n"
    "  sglang_router.launch_router   the PD router (Rust router, or MiniLB with --mini-lb)\n"
    "  smg launch                    SMG, the gateway that grew out of the Rust router\n"
    "  mooncake_master               the Mooncake master\n"
    "  py-spy dump --pid PID         py-spy's stack dump of a simulated SGLang rank\n"
    "FLAGS are the real program's flags; test knobs are PDSIM_* environment variables.\n";

[[noreturn]] void usage_error(const std::string& message) {
    std::fputs(kUsage, stderr);
    if (!message.empty()) {
        std::fprintf(stderr, "pdsim: error: %s\n", message.c_str());
    }
    pdsim::exit_now(2);
}

}  // namespace

int main(int argc, char** argv) {
    pdsim::install_signal_handling();
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    std::size_t first = (!args.empty() && args[0] == "-m") ? 1 : 0;
    if (first >= args.size()) {
        usage_error("missing PROGRAM");
    }
    const std::string& program = args[first];
    std::span<const std::string> flags = std::span<const std::string>(args).subspan(first + 1);
    try {
        const bool subcommand = !flags.empty();
        if (program == "sglang.launch_server") {
            pdsim::run_sglang_server(flags);
        } else if (program == "sglang" && subcommand && flags[0] == "serve") {
            pdsim::run_sglang_server(flags.subspan(1));  // `sglang serve`: launch_server's flags
        } else if (program == "sglang_router.launch_router") {
            pdsim::run_router(flags, false);
        } else if (program == "smg" && subcommand && flags[0] == "launch") {
            pdsim::run_router(flags.subspan(1), true);
        } else if (program == "mooncake_master") {
            pdsim::run_mooncake_master(flags);
        } else if (program == "py-spy") {
            pdsim::run_py_spy(flags);
        }
        usage_error("unknown PROGRAM '" + program + "'");
    } catch (const pdsim::UsageError& e) {
        usage_error(e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pdsim: fatal: %s\n", e.what());
        pdsim::exit_now(1);
    }
}
