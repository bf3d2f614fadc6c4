#pragma once
// A scoped stop or start behind a router with a worker API (SMG, sglang-router): the stopped groups
// leave the router's list first, so it neither sends to them nor calls them failed while they are down
// on purpose; a group started again on its own joins the list once it is ready. MiniLB has no such
// list: its workers are fixed on its command line.

#include <chrono>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/health/http_prober.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::ops {

// For each stage of `stopping` that a router of `whole` (not itself stopping) lists: asked out of it,
// and noted; `clock` paces the wait for it to leave. A router that does not answer or refuses is noted,
// never fatal: the stop goes on.
void leave_routers(const plan::Plan& whole, const plan::Plan& stopping, health::HttpProber& prober,
                   engine::Clock& clock, engine::Reporter& reporter, std::chrono::milliseconds timeout);

// For each stage of `started` that a router of `whole` (not itself started) is configured with but
// does not list: added, and noted. Returns what could not be added ("" when all were).
std::string join_routers(const plan::Plan& whole, const plan::Plan& started, health::HttpProber& prober,
                         engine::Reporter& reporter, std::chrono::milliseconds timeout);

}  // namespace pdctl::ops
