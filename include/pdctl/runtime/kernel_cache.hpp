#pragma once
// What a unit's start said of its kernel cache (src/runtime/scripts/_cache_prepare.sh): the line
//   cache hit|miss KEY DIR[; set aside OLDKEY: WHY]
// at the head of the start command's answer, which the journal keeps with the unit's start. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pdctl/exec/command.hpp"
#include "pdctl/runtime/unit_spec.hpp"

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

// `pdctl cache spread` (src/runtime/scripts/cache_spread.sh): what a node would use and what it holds;
// a cache packed into one archive on the node that has it; the archive unpacked on a peer, whose own
// key must be the archive's.
struct CachePeek {
    std::string want;      // the key this node's next start would use
    std::string have;      // the key of what its directory holds ("" = nothing)
    bool kernels = false;  // it holds something compiled
    long long bytes = 0;
    bool holds_wanted() const { return kernels && have == want && !want.empty(); }
};
exec::Command cache_peek_command(const CacheSpec& cache, const std::string& cli);
CachePeek parse_cache_peek(const std::string& output);
exec::Command cache_pack_command(const std::string& dir, const std::string& archive);
// The archive's size and sha256 from the pack's answer; size 0 when it did not say.
std::pair<std::uint64_t, std::string> parse_packed(const std::string& output);
exec::Command cache_unpack_command(const CacheSpec& cache, const std::string& cli,
                                   const std::string& archive);

}  // namespace pdctl::runtime
