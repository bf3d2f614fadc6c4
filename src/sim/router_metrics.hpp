#pragma once
// The Prometheus text a PD router serves on its metrics listener (`--prometheus-port`, default 29000,
// path /metrics): SMG's `smg_*` names or the older Rust sglang-router's `sgl_router_*` names, with the
// labels each puts on them. MiniLB has no metrics listener. Only the series an operator's alerts use
// are simulated: per-worker health, the pool sizes and the request counter.

#include <cstdint>
#include <string>

#include "sim/router_workers.hpp"

namespace pdsim {

std::string router_metrics_text(const WorkerPool& pool, bool smg, std::uint64_t requests);

}  // namespace pdsim
