#pragma once
// Which SSH transport each node gets and why (`ssh.transport`, docs/ssh.md): a section of `pdctl plan`
// and of `pdctl doctor`, so the `auto` decision is seen before anything connects.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pdctl/exec/transport_choice.hpp"

namespace pdctl::report {

using exec::NodeTransport;

// Nodes in config order; a run of consecutive nodes with the same transport and reason is one line
// ("n5–n8  openssh  ProxyJump root@[10.77.0.250] ...").
std::string render_transports_text(const std::vector<NodeTransport>& nodes);
// [{"node", "transport", "reason", "automatic"}, ...]
nlohmann::json transports_to_json(const std::vector<NodeTransport>& nodes);

}  // namespace pdctl::report
