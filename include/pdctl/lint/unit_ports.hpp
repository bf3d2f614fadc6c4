#pragma once
// Every port a unit will listen on, with the host it binds: what the start preflight checks is free on
// the node before anything starts. The same reading of the final argv as the port rules (PD012/PD013):
// sglang --port on every rank, the bootstrap port on prefill rank 0, the --dist-init-addr port on rank 0,
// mooncake_master's RPC and metrics ports, the router's --port, a generic role's port.

#include <string>
#include <vector>

#include "pdctl/config/model.hpp"
#include "pdctl/plan/plan.hpp"

namespace pdctl::lint {

struct UnitPort {
    std::string host;  // the address it binds; "" = every interface (0.0.0.0, ::)
    int port = 0;
    std::string what;  // "--port", "bootstrap port", "dist-init port", "RPC port", ...
};

std::vector<UnitPort> unit_ports(const config::Role& role, const plan::Stage& stage, const plan::Unit& unit);

}  // namespace pdctl::lint
