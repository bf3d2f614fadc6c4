#pragma once
// Test knobs, read from the environment so the real programs' flags stay untouched: how long
// each start-up phase takes, and where to inject a crash or a hang.

#include <array>
#include <optional>
#include <string_view>

#include "sim/capacity.hpp"
#include "sim/process.hpp"

namespace pdsim {

enum class Phase { kInit, kWeights, kKv, kCudaGraph, kWarmup };
inline constexpr int kPhaseCount = 5;

std::string_view phase_name(Phase phase);  // "init", "weights", "kv", "cuda-graph", "warmup"

// An injected fault: at `phase`, on node rank `rank` (every rank when unset).
struct Fault {
    std::optional<Phase> phase;
    std::optional<int> rank;

    bool hits(Phase at, int node_rank) const { return phase == at && (!rank || *rank == node_rank); }
};

struct Knobs {
    std::array<Millis, kPhaseCount> durations{};  // PDSIM_PHASE_MS, PDSIM_<PHASE>_MS
    Fault crash;                                  // PDSIM_CRASH_AT, PDSIM_CRASH_RANK
    Fault hang;                                   // PDSIM_HANG_AT, PDSIM_HANG_RANK
    // PDSIM_COMPILE_MS: kernel compilation on a start whose cache root holds no entry for its kernels
    // (sim/kernel_cache.hpp); it runs inside the CUDA-graph phase, which then lasts at least this long.
    Millis compile{0};
    Millis dist_timeout{600000};  // PDSIM_DIST_TIMEOUT_MS: rendezvous bound
    Millis peer_death{1000};      // PDSIM_PEER_DEATH_MS: time to notice a dead group member
    Millis router_check{500};     // PDSIM_ROUTER_CHECK_MS: router health polling
    Millis router_drain{5000};    // PDSIM_ROUTER_DRAIN_MS: a removed worker drains this long (SMG: 5 s)
    Millis kv_timeout{10000};     // PDSIM_KV_TIMEOUT_MS: decode waits for prefill's KV
    CapacityKnobs capacity;       // how fast a server serves (sim/capacity.hpp)
    int hcas = -1;                // PDSIM_HCAS: HCAs "found"; -1 = one per ib device
    // PDSIM_HEALTH_FAULT: how the API port misbehaves once the server is up — "slow" (every answer
    // after PDSIM_HEALTH_DELAY_MS), "500" (/health answers 500), "garbage" (not HTTP at all: an SSH
    // banner, as when a health check points at the wrong port). "" = healthy.
    std::string health_fault;
    Millis health_delay{30000};
    // PDSIM_KV_FAULT (decode): the KV path is broken while every /health stays 200 — "bootstrap" (the
    // prefill's bootstrap server cannot be reached from decode: a firewall between P and D) or
    // "transfer" (the route is found, the KV never arrives: a broken RDMA path) or "retry" (each
    // transfer fails once, is counted, and succeeds when tried again: a flaky path). "" = works.
    std::string kv_fault;
    // PDSIM_MASTER_READY_MS: the Mooncake master's JSON /health says service_ready false for this
    // long after it binds (recent masters). PDSIM_MASTER_HEALTH=plain: an older master's plain "OK".
    Millis master_ready{0};
    bool master_plain_health = false;

    Millis duration(Phase phase) const { return durations[static_cast<std::size_t>(phase)]; }
};

// Reads the PDSIM_* variables. A malformed value is a usage error: message on stderr, exit 2.
Knobs load_knobs();

}  // namespace pdsim
