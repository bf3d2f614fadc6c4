#pragma once
// `pdctl cache status` and `pdctl cache clear`: the compiled-kernel caches of the roles with `cache:`
// (plan/kernel_cache.hpp), read from and removed on every node that runs a rank of them, in parallel.

#include <cstdint>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/runtime/kernel_cache.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::ops {

// One role's cache on one node.
struct NodeRoleCache {
    std::string node;
    std::string role;   // the `roles:` entry (its groups share the directory)
    std::string error;  // the node did not answer, or its answer said nothing of the directory
    long long node_now_epoch = 0;
    runtime::CacheDirState state;
};

struct CacheReport {
    std::vector<NodeRoleCache> caches;  // in plan order: role, then rank
    bool any_error() const;
};

// Throws Failure (usage) when no selected role keeps a cache.
CacheReport read_caches(const Deployment& deployment, const plan::Scope& scope);

struct CacheClearResult {
    long long bytes = 0;
    std::vector<std::string> failed;  // "n3: unreachable: ..."
};
// Refuses (Failure, usage) while a unit of a selected role runs: it reads and writes its cache. With
// `only_set_aside`, only the caches of other fingerprints go, which no start would load again unless
// its config went back to theirs.
CacheClearResult clear_caches(const Deployment& deployment, const plan::Scope& scope, bool only_set_aside);

// `pdctl cache spread`: for each role, the nodes whose next start would use the same key (the same image
// ID, GPUs and driver, the same kernel-relevant flags) and lack that key's kernels get them from a node
// that has them, streamed node to node (push/relay.hpp), sha256-checked on each before it is unpacked;
// a cache of another key on a receiver is set aside first, as a start does. Nodes with no peer of
// their key, or whose peers all lack kernels, are left as they are.
struct CacheSpread {
    std::string role;
    std::string key;
    std::string from;                 // the node that had it
    std::uint64_t bytes = 0;          // the archive
    std::vector<std::string> to;      // the nodes that got it
    std::vector<std::string> failed;  // "n7: relay: ..."
    double seconds = 0;
};
struct CacheSpreadResult {
    std::vector<CacheSpread> spreads;
    std::vector<std::string> without_source;  // "decode 0fad058aa1ea64e5: n5, n6 (no node has its kernels)"
    std::vector<std::string> errors;          // a node that did not answer
    bool failed() const;
};
CacheSpreadResult spread_caches(const Deployment& deployment, const plan::Scope& scope, int relay_port);
// The same over the stages of `target` (a start's, before it launches anything: a node that lacks its
// role's kernels gets them from a peer rather than compiling them again).
CacheSpreadResult spread_caches_in(const Deployment& deployment, const plan::Plan& target, int relay_port);
bool uses_kernel_caches(const plan::Plan& target);
// One line per spread and per node left to compile, for a run's notes.
std::vector<std::string> spread_notes(const CacheSpreadResult& result);
inline constexpr int kCacheSpreadPort = 29601;

}  // namespace pdctl::ops
