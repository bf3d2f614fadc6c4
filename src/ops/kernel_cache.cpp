#include "pdctl/ops/kernel_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "pdctl/engine/backend.hpp"
#include "pdctl/engine/observer.hpp"
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
        for (const auto& observed : observation.nodes) {
            const std::string& name = observed.first;
            const auto& node = observed.second;
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

}  // namespace pdctl::ops
