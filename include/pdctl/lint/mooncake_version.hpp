#pragma once
// The Mooncake the runbook requires inside the P/D containers: 0.3.12.post1 or newer (the dmabuf
// registration fix, Mooncake #2035); the image ships 0.3.11.post1. The readers of versions and
// installs are config's (pdctl/config/mooncake_installs.hpp).

#include "pdctl/config/mooncake_installs.hpp"

namespace pdctl::lint {

using config::compare;
using config::mentions_mooncake_package;
using config::mooncake_image_tag;
using config::mooncake_installs;
using config::MooncakeInstall;
using config::parse_version;
using config::Version;

// The oldest Mooncake the runbook accepts.
inline constexpr const char* kMinimumMooncake = "0.3.12.post1";

}  // namespace pdctl::lint
