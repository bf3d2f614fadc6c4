#pragma once
// `pdctl cache status` and `pdctl cache clear`: the compiled-kernel caches of the roles with `cache:`
// (plan/kernel_cache.hpp), read from and removed on every node that runs a rank of them, in parallel.

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

}  // namespace pdctl::ops
