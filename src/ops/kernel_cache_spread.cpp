// `pdctl cache spread`, and the spread a start makes before it launches (ops/kernel_cache.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "pdctl/engine/backend.hpp"
#include "pdctl/ops/kernel_cache.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/push/relay.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {

bool CacheSpreadResult::failed() const {
    return !errors.empty() || std::any_of(spreads.begin(), spreads.end(),
                                          [](const CacheSpread& spread) { return !spread.failed.empty(); });
}

namespace {

// One node's cache of one role: what it would use and what it holds.
struct SpreadMember {
    const plan::Unit* unit = nullptr;
    std::string role;
    std::string cli;
    runtime::CachePeek peek;
    std::string error;
};

std::vector<SpreadMember> spread_members(const Deployment& deployment, const plan::Plan& target) {
    std::vector<SpreadMember> members;
    for (const auto& stage : target.stages) {
        for (const auto& unit : stage.units) {
            if (!unit.cache.enabled()) continue;
            const bool seen = std::any_of(members.begin(), members.end(), [&](const SpreadMember& m) {
                return m.unit->node == unit.node && m.unit->cache.dir == unit.cache.dir;
            });
            if (!seen) members.push_back({&unit, stage.config_role, stage.runtime.cli, {}, ""});
        }
    }
    util::for_each_parallel(members.size(), util::kEngineFanout, [&](std::size_t i) {
        auto& member = members[i];
        const auto answer =
            deployment.executor->run(engine::plan_node(deployment.plan, member.unit->node),
                                     runtime::cache_peek_command(member.unit->cache, member.cli));
        if (!answer.ok())
            member.error = member.unit->node + ": " + exec::failure_reason(answer);
        else
            member.peek = runtime::parse_cache_peek(answer.out);
    });
    return members;
}

// Streams the cache of `from` to `to` (all of one role and key) and unpacks it on each.
CacheSpread spread_one(const Deployment& deployment, const SpreadMember& from,
                       const std::vector<const SpreadMember*>& to, int relay_port) {
    const auto began = util::SteadyClock::now();
    CacheSpread spread{from.role, from.peek.want, from.unit->node, 0, {}, {}, 0};
    const auto& dir = from.unit->cache.dir;
    const auto archive = dir + ".stale/.spread.tar";
    const auto& head = engine::plan_node(deployment.plan, from.unit->node);
    const auto packed = deployment.executor->run(head, runtime::cache_pack_command(dir, archive));
    const auto archive_facts = runtime::parse_packed(packed.out);
    const std::uint64_t bytes = archive_facts.first;
    const std::string sha256 = archive_facts.second;
    if (!packed.ok() || bytes == 0 || sha256.empty()) {
        for (const auto* member : to)
            spread.failed.push_back(member->unit->node + ": " + from.unit->node +
                                    " could not pack its cache: " + exec::failure_reason(packed));
        return spread;
    }
    spread.bytes = bytes;
    std::vector<push::RelayLeg> legs;
    for (const auto* member : to) {
        const auto& node = engine::plan_node(deployment.plan, member->unit->node);
        // The directory's parent, where the archive arrives (a node that never started with the cache).
        deployment.executor->run(node,
                                 push::make_directories_command({member->unit->cache.dir + ".stale/x"}));
        legs.push_back({&node, member->unit->cache.dir + ".stale/.spread.part", false, "", 0, ""});
    }
    push::RelayOptions options;
    options.port = relay_port;
    push::relay_from_node(*deployment.executor, head, archive, bytes, 0600, legs, options);
    std::mutex mutex;
    util::for_each_parallel(legs.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& member = *to[i];
        std::string why = legs[i].error;
        if (legs[i].arrived) {
            const auto whole = member.unit->cache.dir + ".stale/.spread.tar";
            const auto verified = deployment.executor->run(
                *legs[i].node, push::verify_and_rename_command(legs[i].temp, sha256, whole));
            const auto unpacked =
                verified.ok()
                    ? deployment.executor->run(
                          *legs[i].node, runtime::cache_unpack_command(member.unit->cache, member.cli, whole))
                    : verified;
            if (!verified.ok())
                why = "the archive's sha256 differs from " + from.unit->node + "'s";
            else if (!unpacked.ok())
                why = exec::failure_reason(unpacked);
        }
        std::lock_guard lock(mutex);
        if (why.empty())
            spread.to.push_back(member.unit->node);
        else
            spread.failed.push_back(member.unit->node + ": " + why);
    });
    exec::Command cleanup{{"rm", "-f", archive}, {}, std::chrono::seconds(30)};
    deployment.executor->run(head, cleanup);
    std::sort(spread.to.begin(), spread.to.end());
    std::sort(spread.failed.begin(), spread.failed.end());
    spread.seconds = util::to_seconds(util::SteadyClock::now() - began);
    return spread;
}

}  // namespace

CacheSpreadResult spread_caches(const Deployment& deployment, const plan::Scope& scope, int relay_port) {
    const auto target = plan::scope_plan(deployment.plan, scope, "cache spread").plan;
    if (!uses_kernel_caches(target))
        throw Failure(
            ExitCode::kUsage,
            "cache spread: no" + std::string(scope.empty() ? "" : " selected") + " role keeps a kernel cache",
            "set `cache: /var/cache/pdctl` under defaults: or an sglang role");
    return spread_caches_in(deployment, target, relay_port);
}

bool uses_kernel_caches(const plan::Plan& target) {
    for (const auto& stage : target.stages)
        for (const auto& unit : stage.units)
            if (unit.cache.enabled()) return true;
    return false;
}

std::vector<std::string> spread_notes(const CacheSpreadResult& result) {
    std::vector<std::string> notes;
    for (const auto& spread : result.spreads) {
        if (!spread.to.empty())
            notes.push_back(fmt::format("kernel cache of {} ({}) spread from {} to {} in {:.1f}s",
                                        spread.role, spread.key, spread.from, util::join(spread.to, ", "),
                                        spread.seconds));
        for (const auto& failure : spread.failed)
            notes.push_back(fmt::format("kernel cache of {} not spread to {}: it compiles its own",
                                        spread.role, failure));
    }
    for (const auto& error : result.errors) notes.push_back("kernel cache not looked at on " + error);
    return notes;
}

CacheSpreadResult spread_caches_in(const Deployment& deployment, const plan::Plan& target, int relay_port) {
    const auto members = spread_members(deployment, target);
    CacheSpreadResult result;
    // By role and the key each node would use: the nodes of one group hold one fingerprint.
    std::map<std::pair<std::string, std::string>, std::vector<const SpreadMember*>> groups;
    for (const auto& member : members) {
        if (!member.error.empty()) {
            result.errors.push_back(member.error);
            continue;
        }
        groups[{member.role, member.peek.want}].push_back(&member);
    }
    for (const auto& [key, group] : groups) {
        const SpreadMember* source = nullptr;
        std::vector<const SpreadMember*> lacking;
        for (const auto* member : group) {
            if (member->peek.holds_wanted()) {
                if (!source) source = member;
            } else {
                lacking.push_back(member);
            }
        }
        if (lacking.empty()) continue;
        if (!source) {
            std::vector<std::string> nodes;
            for (const auto* member : lacking) nodes.push_back(member->unit->node);
            result.without_source.push_back(key.first + " " + key.second + ": " + util::join(nodes, ", ") +
                                            " (no node has its kernels: the next start compiles them)");
            continue;
        }
        result.spreads.push_back(spread_one(deployment, *source, lacking, relay_port));
    }
    return result;
}

}  // namespace pdctl::ops
