#pragma once
// Internal to status: where each running sglang rank is, read from its log, and whether it makes
// progress (engine/stall.hpp). One log read per unit; the caller runs them beside the health probes.

#include <optional>

#include "pdctl/engine/status.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/runtime/runtime.hpp"

namespace pdctl::engine {

// How much of each log status reads (the plan's Unit::log_activity): a start-up's phase lines are
// within it, and a longer log has left its start-up behind.
inline constexpr int kStatusTailLines = plan::kActivityTailLines;

// The unit's log activity, or nothing when the node could not be asked or the read failed.
std::optional<runtime::LogActivity> read_log_activity(const plan::Plan& plan, const plan::Unit& unit,
                                                      exec::Executor& executor);

// Fills phase, log_quiet_seconds, progress and stall of `role`'s running units from their activity
// (in unit order; nothing for a unit whose log was not read). `role.ready` must be known.
void judge_role_progress(const plan::Stage& stage,
                         const std::vector<std::optional<runtime::LogActivity>>& activity, RoleStatus& role);

}  // namespace pdctl::engine
