#pragma once
// Which command-line flags each Mooncake release's mooncake_master has. gflags exits on a flag it
// does not know ("ERROR: unknown command line flag"), so a flag newer than the master's release, or
// one a later release removed, stops the master before it serves. The table is read from the
// DEFINE_* lines of mooncake-store/src/master.cpp at every v0.3.x tag of kvcache-ai/Mooncake, and at
// main for the flags no release has yet.

#include <optional>
#include <string>
#include <string_view>

#include "pdctl/config/mooncake_version.hpp"

namespace pdctl::config {

// The newest release the table knows: a flag that appeared after it is on main only.
inline constexpr MooncakeVersion kNewestMooncakeRelease{{0, 3, 12}, 1};

struct MooncakeMasterFlag {
    std::string_view name;  // without dashes, as gflags spells it: "rpc_port"
    // The first release that has it; nullopt: none yet (main after kNewestMooncakeRelease).
    // {0,0,0} = every release the table knows (0.3.0 on).
    std::optional<MooncakeVersion> since;
    std::optional<MooncakeVersion> removed_in;  // the first release without it again; nullopt = still there
    // Still accepted, but the master says to use this one instead (gflags help "deprecated, use ...").
    std::string_view deprecated_for;
    std::optional<MooncakeVersion> deprecated_since;
};

// nullopt for a flag the table does not know (glog's, gflags' own, or one defined elsewhere): such a
// flag is never judged.
const MooncakeMasterFlag* find_mooncake_master_flag(std::string_view name);

enum class FlagPresence { Has, NotYet, Removed };
FlagPresence presence(const MooncakeMasterFlag& flag, const MooncakeVersion& version);

// Whether `version`'s mooncake_master takes `name`; true for a flag the table does not know.
bool mooncake_master_has(const MooncakeVersion& version, std::string_view name);

// "0.3.12.post1"
std::string to_string(const MooncakeVersion& version);

}  // namespace pdctl::config
