#include "pdctl/ops/kernel_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/observer.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/push/relay.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

struct CacheTarget {
    std::string node;
    std::string role;
    std::string dir;
    std::vector<std::string> units;  // the units on `node` that use `dir`
};

// Each (node, cache directory) once, in plan order: the groups of a role share their directory.
std::vector<CacheTarget> cache_targets(const Deployment& deployment, const plan::Scope& scope,
                                       const std::string& verb) {
    std::vector<CacheTarget> out;
    for (const auto& stage : plan::scope_plan(deployment.plan, scope, verb).plan.stages) {
        if (!scope.empty() &&
            std::find(scope.roles.begin(), scope.roles.end(), stage.config_role) == scope.roles.end() &&
            std::find(scope.groups.begin(), scope.groups.end(), stage.role) == scope.groups.end())
            continue;  // pulled in by the scope's closure (decode with prefill), not selected
        for (const auto& unit : stage.units) {
            if (!unit.cache.enabled()) continue;
            auto same = std::find_if(out.begin(), out.end(), [&](const CacheTarget& t) {
                return t.node == unit.node && t.dir == unit.cache.dir;
            });
            if (same == out.end())
                same = out.insert(out.end(), CacheTarget{unit.node, stage.config_role, unit.cache.dir, {}});
            same->units.push_back(unit.name);
        }
    }
    if (out.empty())
        throw Failure(ExitCode::kUsage,
                      verb + ": no" + (scope.empty() ? "" : " selected") + " role keeps a kernel cache",
                      "set `cache: /var/cache/pdctl` under defaults: or an sglang role");
    return out;
}

// The targets by node, each node's directories in order.
std::map<std::string, std::vector<std::string>> dirs_by_node(const std::vector<CacheTarget>& all) {
    std::map<std::string, std::vector<std::string>> by_node;
    for (const auto& target : all) by_node[target.node].push_back(target.dir);
    return by_node;
}

}  // namespace

bool CacheReport::any_error() const {
    return std::any_of(caches.begin(), caches.end(), [](const NodeRoleCache& c) { return !c.error.empty(); });
}

CacheReport read_caches(const Deployment& deployment, const plan::Scope& scope) {
    const auto all = cache_targets(deployment, scope, "cache status");
    const auto by_node = dirs_by_node(all);
    std::map<std::string, exec::CommandResult> answers;
    std::mutex mutex;
    std::vector<std::string> nodes;
    for (const auto& [node, dirs] : by_node) nodes.push_back(node);
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto answer = deployment.executor->run(engine::plan_node(deployment.plan, nodes[i]),
                                                     runtime::cache_status_command(by_node.at(nodes[i])));
        std::lock_guard lock(mutex);
        answers[nodes[i]] = answer;
    });
    CacheReport report;
    for (const auto& target : all) {
        NodeRoleCache cache{target.node, target.role, "", 0, {}};
        cache.state.dir = target.dir;
        const auto& answer = answers.at(target.node);
        if (!answer.transport_error.empty()) {
            cache.error = "unreachable: " + answer.transport_error;
        } else if (!answer.ok()) {
            cache.error = fmt::format("the cache listing failed (exit {}): {}", answer.exit_code,
                                      util::first_line(answer.err));
        } else {
            const auto listed = runtime::parse_cache_status(answer.out);
            cache.node_now_epoch = listed.now_epoch;
            for (const auto& dir : listed.dirs)
                if (dir.dir == target.dir) cache.state = dir;
        }
        report.caches.push_back(std::move(cache));
    }
    return report;
}

CacheClearResult clear_caches(const Deployment& deployment, const plan::Scope& scope, bool only_set_aside) {
    const auto all = cache_targets(deployment, scope, "cache clear");
    const auto by_node = dirs_by_node(all);
    std::vector<std::string> nodes;
    for (const auto& [node, dirs] : by_node) nodes.push_back(node);
    if (!only_set_aside) {
        const auto observation = engine::observe(deployment.plan, *deployment.executor, nodes);
        std::vector<std::string> running;
        for (const auto& [name, node] : observation.nodes) {
            if (!node.transport_error.empty())
                throw Failure(ExitCode::kUnreachable,
                              "cache clear: " + name + " did not answer (" + node.transport_error +
                                  "); whether a unit there reads its cache is unknown, nothing was removed");
            for (const auto& unit : node.units) {
                const bool selected = std::any_of(all.begin(), all.end(), [&](const CacheTarget& t) {
                    return t.node == name &&
                           std::find(t.units.begin(), t.units.end(), unit.state.unit) != t.units.end();
                });
                if (unit.state.running && selected) running.push_back(unit.state.unit + " on " + name);
            }
        }
        if (!running.empty())
            throw Failure(ExitCode::kUsage,
                          "cache clear: " + util::join(running, ", ") + " runs and reads its cache",
                          "stop it first, or clear only the caches set aside with --set-aside");
    }
    CacheClearResult result;
    std::mutex mutex;
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto answer =
            deployment.executor->run(engine::plan_node(deployment.plan, nodes[i]),
                                     runtime::cache_clear_command(by_node.at(nodes[i]), only_set_aside));
        std::lock_guard lock(mutex);
        if (!answer.transport_error.empty()) {
            result.failed.push_back(nodes[i] + ": unreachable: " + answer.transport_error);
        } else if (!answer.ok()) {
            result.failed.push_back(
                fmt::format("{}: exit {}: {}", nodes[i], answer.exit_code, util::first_line(answer.err)));
        }
        result.bytes += runtime::parse_cleared_bytes(answer.out);
    });
    std::sort(result.failed.begin(), result.failed.end());
    return result;
}

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
    const auto [bytes, sha256] = runtime::parse_packed(packed.out);
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
        legs.push_back({&node, member->unit->cache.dir + ".stale/.spread.part", false, "", 0});
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
