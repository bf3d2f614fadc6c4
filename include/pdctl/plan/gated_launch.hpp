#pragma once
// A gated restart's new ranks (SGLang --gated-launch-port, python/sglang/srt/distributed/
// gated_launch.py): the same units as the plan's, under the same names and fingerprints, started so
// that they join their group and then wait, before the weights, until rank 0's gate is opened. What
// binds before the gate must not collide with the old ranks that still serve on the same nodes: the
// gate port itself and the dist-init port get values of their own, two slots that alternate from one
// gated restart to the next (the old ranks of a gated start still hold theirs). Pure: the engine's
// gated restart (engine/gated_restart.hpp) carries it out.

#include <string>

#include "pdctl/plan/plan.hpp"

namespace pdctl::plan {

// The label a gated unit carries: "GATE_PORT:DIST_INIT_PORT" (DIST_INIT_PORT 0 for a one-node group).
inline constexpr const char* kGatedLaunchLabel = "pdctl.gated-launch";
// What the old units are renamed to while the new ones start under their names.
std::string outgoing_name(const std::string& unit_name);

struct GatedPorts {
    int gate = 0;       // --gated-launch-port, on rank 0's compute address
    int dist_init = 0;  // the port of --dist-init-addr; 0: the group has one node and no such flag
};

// The slot after the one the old units were started with (`old_label`: their kGatedLaunchLabel, ""
// for a plain start): gate port `base_gate_port` or the one after it, and the plan's dist-init port
// plus one or plus two, whichever the old ranks do not hold.
GatedPorts next_gated_ports(const Stage& stage, int base_gate_port, const std::string& old_label);

// Why `stage` cannot be restarted gated, or "" when it can: a decode group of SGLang ranks in
// containers. Prefill binds its bootstrap port (which the router and the decodes are given) before
// the gate; a process unit cannot be renamed (runtime.hpp); a SLURM group is one job.
std::string gated_restart_refusal(const Plan& plan, const Stage& stage);

// `stage` with every unit's start command for a gated launch on `ports`: the program gets
// --gated-launch-port and its own dist-init port, the units the kGatedLaunchLabel; names and
// fingerprints stay the plan's.
Stage gated_stage(const Stage& stage, const GatedPorts& ports);

// The group's gate: rank 0's control server, http://ADDRESS:PORT.
std::string gate_base_url(const Stage& stage, const GatedPorts& ports);

}  // namespace pdctl::plan
