// What the programs pdctl starts write to their logs, in one place: the lines that mark each start-up
// phase, the facts worth a warning, and the failures with a hint for the operator. Start-up phases
// (startup_phase.cpp) and failure hints (failure_hint.cpp) both read these tables.
#include "log_patterns.hpp"

#include <array>

namespace pdctl::runtime::log_patterns {
namespace {

// Start-up phases. First matching rule wins, so the failures come first ("Disaggregation warmup failed" is a
// failure, not warm-up). Lines logged once at start-up whatever happens later ("Cuda graph is disabled for
// prefill server", "KV cache is forced as chunk cache") are deliberately absent: real SGLang prints
// them while parsing arguments, so they say nothing about progress.
constexpr std::array kPhaseRules = {
    // -- failed (scheduler.py, http_server.py, engine.py, Mooncake) --
    PhaseRule{Phase::kFailed, "scheduler hit an exception", "Scheduler hit an exception"},
    PhaseRule{Phase::kFailed, "initialization failed", "Initialization failed"},
    PhaseRule{Phase::kFailed, kPeerDeathNeedle, "Rank \\d+ scheduler is dead"},
    PhaseRule{Phase::kFailed, "memory registration failed", "Mooncake memory registration failed", true},
    // v0.5.4 "Prefill disaggregation mode warm Up Failed", HEAD "Disaggregation warmup failed".
    PhaseRule{Phase::kFailed, "up failed", "warm ?up failed", true},
    // uvicorn cannot bind the API port and the server exits.
    PhaseRule{Phase::kFailed, "error while attempting to bind", "error while attempting to bind on address"},
    // glog FATAL (Mooncake master, transfer engine): "F0312 08:52:39.123456 4242 x.cpp:9] Check failed".
    PhaseRule{Phase::kFailed, "check failed", "^F\\d{4} \\d\\d:\\d\\d:\\d\\d.*Check failed"},

    // -- ready --
    PhaseRule{Phase::kReady, "fired up and ready to roll", "The server is fired up and ready to roll"},
    PhaseRule{Phase::kReady, "master service started", "Master service started"},
    PhaseRule{Phase::kReady, "starting router on", "Starting router on"},  // Rust router, after its workers
    PhaseRule{Phase::kReady, "uvicorn running on", "Uvicorn running on", false, Only::kRouter},  // MiniLB

    // -- rank 0 after the scheduler: API port, then the warm-up request --
    // v0.5.4 "Start of pd disaggregation warmup ...", "End of prefill disaggregation mode warmup with
    // status 200"; HEAD "Disaggregation warmup requests completed for all N DP ranks", "End of
    // disaggregation warmup".
    PhaseRule{Phase::kWarmup, "warmup", "disaggregation (mode )?warmup", true},
    PhaseRule{Phase::kHttpUp, "uvicorn running on", "Uvicorn running on", false, Only::kNotRouter},

    // -- ranks >= 1: done, answering the dummy /health ("scheduled on existing loop" v0.5.4,
    // "started in background thread" HEAD) --
    PhaseRule{Phase::kJoined, "dummy health check server", "Dummy health check server (scheduled|started)"},

    // -- scheduler start-up (model_runner.py; HEAD moved some of it, same words) --
    // v0.5.4 "Capture cuda graph begin."; HEAD "Capture target decode CUDA graph begin."
    PhaseRule{Phase::kCudaGraphs, "cuda graph", "Capture .*cuda graph end", true, Only::kAny, true},
    PhaseRule{Phase::kCudaGraphs, "cuda graph", "Capture .*cuda graph begin", true},
    // The KV pool is sized from the memory left after the weights, right after they are loaded.
    PhaseRule{Phase::kKvCache, "load weight end", "Load weight end"},
    PhaseRule{Phase::kKvCache, "kv cache is allocated", "KV Cache is allocated", true},
    PhaseRule{Phase::kKvCache, "memory pool end", "Memory pool end", false, Only::kAny, true},
    PhaseRule{Phase::kLoadingWeights, "load weight begin", "Load weight begin"},
    // The loader's progress bar, in case it pushed "Load weight begin" out of the tail.
    PhaseRule{Phase::kLoadingWeights, "checkpoint shards", "Loading (safetensors|pt) checkpoint shards"},
    PhaseRule{Phase::kInitialising, "server_args=", "server_args=ServerArgs\\("},
    // v0.5.4 "Init torch distributed ends. mem usage=.."; HEAD "... ends. elapsed=..".
    PhaseRule{Phase::kInitialising, "init torch distributed", "Init torch distributed ends", false,
              Only::kAny, true},
    PhaseRule{Phase::kInitialising, "init torch distributed", "Init torch distributed begin"},
    // Mooncake transfer engine (PD only).
    PhaseRule{Phase::kInitialising, "transfer engine rpc", "Transfer Engine RPC using"},
    PhaseRule{Phase::kInitialising, "topology", "Auto-discovering topology|Topology discovery complete"},
    PhaseRule{Phase::kInitialising, "rdma device:", "RDMA device: "},
    PhaseRule{Phase::kInitialising, "mc_force_tcp", "MC_FORCE_TCP is set"},
    // Rust router before it serves.
    PhaseRule{Phase::kInitialising, "workers to become healthy",
              "Waiting for \\d+ workers to become healthy"},
};

constexpr std::array kWarningRules = {
    WarningRule{"found 0 hcas", "Found 0 HCAs",
                "Mooncake found 0 HCAs: no RDMA device, the KV transfer falls back to TCP"},
    WarningRule{"mc_force_tcp", "MC_FORCE_TCP is set",
                "MC_FORCE_TCP is set: Mooncake transfers the KV cache over TCP, not RDMA"},
};

// The failures operators hit most, matched on the failed unit's log.
constexpr std::array kFailureHints = {
    FailureHint{"Mooncake memory registration failed",
                "registration failures usually mean PYTORCH_CUDA_ALLOC_CONF has expandable_segments "
                "(https://github.com/kvcache-ai/Mooncake/issues/2511), "
                "no GPUDirect RDMA (nvidia_peermem / dma-buf), or a non-privileged container"},
    FailureHint{"Bad address [14]",
                "Mooncake could not register GPU memory: remove expandable_segments from "
                "PYTORCH_CUDA_ALLOC_CONF and check nvidia_peermem"},
    FailureHint{
        "Error fetching prefill parallel info from bootstrap",
        "decode cannot reach the prefill bootstrap: give the router rank-0 routable addresses and the same "
        "bootstrap port as the prefill's --disaggregation-bootstrap-port"},
    FailureHint{"connectFullMesh failed",
                "Gloo cannot connect the ranks: set GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME to the "
                "cross-node NIC and check --dist-init-addr reachability"},
    FailureHint{"Address already in use",
                "a port of this role is taken on the node: another instance or program is running"},
    FailureHint{"Found 0 HCAs",
                "no RDMA device visible in the container: Mooncake falls back to TCP; run privileged with "
                "/dev/infiniband"},
};

}  // namespace

std::span<const PhaseRule> phase_rules() {
    return kPhaseRules;
}
std::span<const WarningRule> warning_rules() {
    return kWarningRules;
}
std::span<const FailureHint> failure_hints() {
    return kFailureHints;
}

}  // namespace pdctl::runtime::log_patterns
