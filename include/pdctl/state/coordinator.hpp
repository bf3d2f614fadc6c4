#pragma once
// The coordinator node keeps what belongs to the cluster as a whole rather than to one unit: the
// deploy lock and the journal, both under <state_dir>/<cluster>/ on that node. Any operator's pdctl
// finds them there, so no machine of the operators has to be shared.

#include <string>

#include "pdctl/config/model.hpp"
#include "pdctl/config/state_paths.hpp"

namespace pdctl::state {

// The node named by `coordinator:`, else the first node. Throws Failure (usage) for a cluster
// without nodes or naming an unknown node (the loader rejects both; a hand-built Cluster may not).
const config::Node& coordinator_node(const config::Cluster& cluster);

}  // namespace pdctl::state
