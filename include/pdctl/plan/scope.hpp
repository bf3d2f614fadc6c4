#pragma once
// `--role R` / `--group G` on start, stop, restart, status and logs: the part of a plan a verb acts
// on, with the stages that must move with it. Pure.

#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

struct Scope {
    std::vector<std::string> roles;   // `roles:` entries: every group of each
    std::vector<std::string> groups;  // single groups, by their stage name (prefill-2)
    bool empty() const { return roles.empty() && groups.empty(); }
};

struct ScopedPlan {
    Plan plan;  // the selected stages and their closure, in plan order; the whole plan for an empty scope
    // Why each stage outside the selection was added ("decode restarts with prefill: ..."), for the
    // plan and the run's notes.
    std::vector<std::string> closure;
};

// The stages of `scope` for `verb` (start, stop, restart, status, logs). A restart or start of a
// prefill group takes the decode groups that depend on it along: a decode keeps its connections to
// the prefill it knew and must reconnect after that prefill restarted (sglang #16903). Nothing else is
// added: a decode restart touches neither prefill nor the master, and a router restarts only when its
// own config (its worker list) changed. Throws Failure(kUsage) for a name that is no role or group.
ScopedPlan scope_plan(const Plan& plan, const Scope& scope, const std::string& verb);

// The nodes that run a unit of the selected stages (no closure), in the order they first appear in the
// plan: what push, pull and doctor act on for --role/--group. Throws like scope_plan for unknown names.
std::vector<std::string> nodes_in_scope(const Plan& plan, const Scope& scope);

}  // namespace pdctl::plan
