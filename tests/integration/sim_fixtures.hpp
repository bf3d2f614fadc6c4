#pragma once
// Command lines and environments shared by the pdsim integration tests. Every test uses its own
// loopback addresses in 127.0.50.0/24 and its own ports, so tests can run in parallel.

#include <initializer_list>
#include <string>
#include <vector>

#include "sim_process.hpp"

namespace pdsim_test {

constexpr Millis kStartDeadline = 10s;  // generous: phases are 50 ms, but CI machines are slow
// A line a program logs right after the moment a test observed (a port that answers, a status that
// changed) reaches its log file a little later, a lot later on a loaded machine: wait for it.
constexpr Millis kLogDeadline = 10s;

// `pdsim -m sglang.launch_server` with the flags a pdctl plan would pass, plus `flags`.
inline std::vector<std::string> sglang_args(std::initializer_list<std::string> flags) {
    std::vector<std::string> args = {"-m", "sglang.launch_server", "--model-path",
                                     "deepseek-ai/DeepSeek-V3-0324", "--trust-remote-code"};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
}

inline std::vector<std::string> router_args(std::initializer_list<std::string> flags) {
    std::vector<std::string> args = {"-m", "sglang_router.launch_router", "--pd-disaggregation"};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
}

// Fast phases (50 ms each) plus `extra` knobs.
inline EnvList fast_env(std::initializer_list<std::pair<std::string, std::string>> extra = {}) {
    EnvList env = {{"PDSIM_PHASE_MS", "50"}, {"PDSIM_ROUTER_CHECK_MS", "50"}};
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

}  // namespace pdsim_test
