#pragma once
// What start, stop and restart are asked on their command line.

#include <string>

#include "pdctl/plan/scope.hpp"

namespace pdctl::cli {

// The flags of start, stop and restart.
struct StartOptions {
    bool keep_on_failure = false;
    bool skip_doctor = false;     // --skip-doctor: start even if the static doctor rules find errors
    bool skip_preflight = false;  // --skip-preflight: start without the preflight on the nodes
    std::string gpu_release_timeout = "60s";  // stop/restart: --gpu-release-timeout
    plan::Scope scope;                        // --role / --group
    // restart only: one group at a time, through the router (plan/rolling.hpp)
    bool rolling = false;
    bool allow_router_restart = false;
    std::string drain_grace = "30s";
    // restart only: decode groups replaced behind SGLang's launch gate (engine/gated_restart.hpp)
    bool gated = false;
    int gate_port = 30100;
    // start/restart: gate deadlines from past starts (timeline/start_history.hpp)
    std::string deadline_policy = "learned";
    std::string deadline_floor = "1m";
    int transfer_error_limit = 3;  // start/restart: --transfer-error-limit
    std::string junit;             // start/restart --junit FILE: a JUnit XML report of the stages and gates
    // start only: stop what holds the planned ports, GPUs or images without being pdctl's (ops/take_over.hpp)
    bool take_over = false;
    bool dry_run = false;  // with --take-over: show what it would stop, touch nothing
    // start/restart: read the model files into the nodes' page cache first (ops/prewarm.hpp)
    bool prewarm = false;
};

}  // namespace pdctl::cli
