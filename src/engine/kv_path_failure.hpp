#pragma once
// Internal to the engine: a router stage whose gate request failed on the KV path the same way
// EngineOptions::transfer_error_limit times in a row. The stack has answered: the stage fails now,
// and the failure carries what the prefill and decode rank 0 logged about it beside the router's
// log, since the router only relays their error.

#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/gate_probe.hpp"
#include "run_context.hpp"
#include "waiting.hpp"

namespace pdctl::engine {

// Counts `probe` into `waiting` (a KV path failure equal to the last one, request ids aside, adds
// one; anything else starts over) and says whether the limit is reached.
bool kv_path_failure_limit_reached(WaitingStage& waiting, const GateAnswer& probe, int limit);

// The stage's failure: its router's rank 0 and log, and each worker's rank-0 log lines that name a
// KV path failure (the last 3 of each).
StageResult kv_path_failure_result(RunContext& run, const WaitingStage& waiting, const GateAnswer& probe);

}  // namespace pdctl::engine
