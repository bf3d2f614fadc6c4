#pragma once
// Every port the plan's units listen on (PD012, PD013), read from their final argv with each
// program's defaults: sglang --port on every rank (ranks >= 1 serve a dummy /health there), the
// bootstrap port on prefill rank 0, the --dist-init-addr port on rank 0 of a multi-node group,
// mooncake_master's RPC and metrics ports, the router's --port, a generic role's port.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rule_support.hpp"

namespace pdctl::lint::detail {

struct Listener {
    const plan::Unit* unit = nullptr;
    int port = 0;
    std::string what;      // "--port", "bootstrap port", ...
    std::string yaml_key;  // the role key that sets it, for the fix
    bool prefill_bootstrap = false;
};

// Listeners grouped by node address and port, in plan order.
using ListenerMap = std::map<std::pair<std::string, int>, std::vector<Listener>>;
ListenerMap listeners_by_address(const RuleInput& input);

// "prefill rank 0 (--port), decode rank 0 (--port)"
std::string describe(const std::vector<Listener>& listeners);

}  // namespace pdctl::lint::detail
