#pragma once
// The Mooncake a mooncake-master role runs, as far as the config shows it, so that pdctl passes the
// flags that release has (plan/mooncake_master.cpp) and the doctor can name the ones it lacks (PD020).

#include <optional>
#include <string>

#include "pdctl/config/model.hpp"

namespace pdctl::config {

struct ShownMooncakeVersion {
    std::string version;  // "0.3.12.post1"
    std::string source;   // for the plan and the doctor: "BOOTSTRAP installs `...whl`", "image ..."
};

// When `version:` does not say: the last versioned Mooncake install in the role's own BOOTSTRAP (pip
// leaves the last one installed), else the tag of a Mooncake image it runs in. nullopt when neither
// shows a MAJOR.MINOR.PATCH[.postN] release. A wheel in `files:` is only copied, so it says nothing
// until a BOOTSTRAP installs it; an image that is not Mooncake's (lmsysorg/sglang) does not say which
// Mooncake it carries.
std::optional<ShownMooncakeVersion> mooncake_version_shown(const Role& role);

}  // namespace pdctl::config
