#pragma once
// Internal to the config layer: `coordinator:`, the node that keeps the deploy lock and the journal.

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

// Reads `coordinator:` (default: the first node) once `cluster.nodes` is known, and rejects node names
// that would collide with what pdctl keeps beside the node directories in <state_dir>/<cluster>/.
void read_coordinator(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

}  // namespace pdctl::config::detail
