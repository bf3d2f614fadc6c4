#pragma once
// What a unit's start said of its kernel cache (src/runtime/scripts/_cache_prepare.sh): the line
//   cache hit|miss KEY DIR[; set aside OLDKEY: WHY]
// at the head of the start command's answer, which the journal keeps with the unit's start. Pure.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/exec/command.hpp"

namespace pdctl::runtime {

struct CacheOutcome {
    bool hit = false;
    std::string key;        // the fingerprint's hash
    std::string dir;        // on the node
    std::string set_aside;  // the key of a cache set aside by this start ("" = none)
    std::string why;        // what differed from it: "image-id sha256:1… -> sha256:2…"
};

// nullopt when the answer has no cache line (the unit keeps no cache, or an older pdctl started it).
std::optional<CacheOutcome> parse_cache_outcome(std::string_view start_answer);

// What a node holds in its kernel cache directories (`pdctl cache status`).
struct SetAsideCache {
    std::string key;
    long long bytes = 0;
    long long set_aside_epoch = 0;
};
struct CacheDirState {
    std::string dir;
    std::string key;  // "" = nothing cached there yet
    long long bytes = 0;
    long long made_epoch = 0;  // when this key's cache was begun
    std::string last_result;   // at the last start: "hit", "miss", "" (none recorded)
    long long last_start_epoch = 0;
    std::vector<SetAsideCache> set_aside;
};
struct NodeCaches {
    long long now_epoch = 0;  // by the node's clock, which the epochs above are
    std::vector<CacheDirState> dirs;
};

exec::Command cache_status_command(const std::vector<std::string>& dirs);
NodeCaches parse_cache_status(const std::string& output);

// Removes the caches (`only_set_aside`: only what was set aside); its answer, the bytes freed per directory.
exec::Command cache_clear_command(const std::vector<std::string>& dirs, bool only_set_aside);
long long parse_cleared_bytes(const std::string& output);

}  // namespace pdctl::runtime
