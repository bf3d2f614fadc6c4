#pragma once
// Internal to the config layer: `files:`, what `pdctl push` distributes. Read after the nodes and roles,
// which its entries name.

#include "pdctl/config/detail/loading.hpp"

namespace pdctl::config::detail {

void read_files(const LoadContext& ctx, const MapReader& top, Cluster& cluster);

}  // namespace pdctl::config::detail
