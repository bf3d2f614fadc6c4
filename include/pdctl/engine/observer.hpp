#pragma once
// Reads what is actually deployed: one inspect command per node (and runtime), in parallel.
// State lives on the nodes, so any pdctl process on any machine sees the same truth.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pdctl/exec/executor.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/runtime/runtime.hpp"

namespace pdctl::engine {

// A unit found on a node, with the runtime that reported it (needed to stop units the plan no longer names).
struct ObservedUnit {
    runtime::UnitState state;
    std::shared_ptr<const runtime::Runtime> runtime;
};

struct NodeObservation {
    std::string node;
    std::string transport_error;  // non-empty: the node did not answer
    std::string inspect_error;    // the inspect command failed (e.g. container engine down)
    std::vector<ObservedUnit> units;
};

struct Observation {
    std::map<std::string, NodeObservation> nodes;  // by node name

    // The state of a unit, or nullptr if the node does not have it.
    const ObservedUnit* find(const std::string& node, const std::string& unit) const;
};

// Inspects `nodes` (names) for the runtimes the plan uses there.
Observation observe(const plan::Plan& plan, exec::Executor& executor, const std::vector<std::string>& nodes);
// All nodes of the plan.
Observation observe_all(const plan::Plan& plan, exec::Executor& executor);

}  // namespace pdctl::engine
