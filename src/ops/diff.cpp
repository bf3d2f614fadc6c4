#include "pdctl/ops/diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>

#include "pdctl/engine/observer.hpp"
#include "pdctl/ops/config_history.hpp"
#include "pdctl/ops/journal_source.hpp"
#include "pdctl/plan/builder.hpp"
#include "pdctl/push/push_plan.hpp"
#include "pdctl/runtime/container_runtime.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/sha256.hpp"

namespace pdctl::ops {
namespace {

struct RunningUnit {
    std::string node;
    std::string unit;
    std::string fingerprint;
    std::string image_id;
};

// The kept configs of the journal's runs, newest first, each read and planned only when asked.
class KeptPlans {
  public:
    explicit KeptPlans(const Deployment& deployment) : deployment_(deployment) {
        const auto journal = read_journal(deployment);
        source_ = journal.source;
        auto runs = state::journal::parse_history(journal.text);
        std::set<std::string> seen;
        for (auto run = runs.rbegin(); run != runs.rend(); ++run)
            if (!run->config_id.empty() && seen.insert(run->config_id).second)
                candidates_.push_back({run->run, run->config_id, std::nullopt, false});
    }

    // The newest kept plan whose stage `stage` has every one of `units` with its fingerprint.
    struct Explained {
        const plan::Stage* stage = nullptr;
        std::string run;  // "RUN (config ID12)"
        std::string config_id;
    };
    Explained explain(const std::string& stage, const std::vector<RunningUnit>& units) {
        for (auto& candidate : candidates_) {
            const auto* planned = plan_of(candidate);
            if (!planned) continue;
            const auto* found = planned->find_stage(stage);
            if (!found) continue;
            const bool all = std::all_of(units.begin(), units.end(), [&](const RunningUnit& running) {
                return std::any_of(found->units.begin(), found->units.end(), [&](const plan::Unit& unit) {
                    return unit.name == running.unit && unit.fingerprint == running.fingerprint;
                });
            });
            if (all)
                return {found, fmt::format("{} (config {})", candidate.run, candidate.id.substr(0, 12)),
                        candidate.id};
        }
        return {};
    }

    const std::string& source() const { return source_; }

  private:
    struct Candidate {
        std::string run;
        std::string id;
        std::optional<plan::Plan> plan;
        bool tried = false;
    };

    const plan::Plan* plan_of(Candidate& candidate) {
        if (!candidate.tried) {
            candidate.tried = true;
            std::string error;
            // A kept config that cannot be read or no longer loads explains nothing; the next one may.
            if (auto bundle = fetch_kept_config(deployment_, candidate.id, error)) {
                try {
                    candidate.plan = plan::build_plan(load_kept_config(*bundle));
                } catch (const std::exception&) {
                }
            }
        }
        return candidate.plan ? &*candidate.plan : nullptr;
    }

    const Deployment& deployment_;
    std::string source_;
    std::vector<Candidate> candidates_;
};

std::vector<std::string> nodes_of(const std::vector<RunningUnit>& units) {
    std::vector<std::string> nodes;
    for (const auto& unit : units)
        if (std::find(nodes.begin(), nodes.end(), unit.node) == nodes.end()) nodes.push_back(unit.node);
    return nodes;
}

bool same_as_wanted(const plan::Stage& wanted, const std::vector<RunningUnit>& units) {
    if (units.size() != wanted.units.size()) return false;
    return std::all_of(units.begin(), units.end(), [&](const RunningUnit& running) {
        return std::any_of(wanted.units.begin(), wanted.units.end(), [&](const plan::Unit& unit) {
            return unit.name == running.unit && unit.fingerprint == running.fingerprint &&
                   unit.node == running.node;
        });
    });
}

// node -> (image -> the ID its tag names there now), for the container stages' nodes that run a unit.
std::map<std::string, std::map<std::string, std::string>> image_ids_now(
    const Deployment& deployment, const std::map<std::string, std::vector<RunningUnit>>& running) {
    std::map<std::string, std::pair<std::string, std::set<std::string>>> asks;  // node -> cli, images
    for (const auto& stage : deployment.plan.stages) {
        if (stage.runtime.kind != config::RuntimeKind::Docker || stage.runtime.image.empty()) continue;
        const auto found = running.find(stage.role);
        if (found == running.end()) continue;
        for (const auto& unit : found->second) {
            asks[unit.node].first = stage.runtime.cli;
            asks[unit.node].second.insert(stage.runtime.image);
        }
    }
    std::vector<std::string> nodes;
    for (const auto& [node, ask] : asks) nodes.push_back(node);
    std::map<std::string, std::map<std::string, std::string>> ids;
    std::mutex mutex;
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto* node = deployment.cluster.find_node(nodes[i]);
        if (!node) return;
        const auto& ask = asks.at(nodes[i]);
        const auto answer = deployment.executor->run(
            *node, runtime::image_ids_command(ask.first, {ask.second.begin(), ask.second.end()}));
        if (!answer.ok()) return;  // the node's units were seen a moment ago: a failure here says nothing new
        auto parsed = runtime::parse_image_ids(answer.out);
        std::lock_guard lock(mutex);
        ids[nodes[i]] = std::move(parsed);
    });
    return ids;
}

std::vector<FileDrift> file_drift(const Deployment& deployment,
                                  std::map<std::string, std::string>& unreachable) {
    const auto targets = push::plan_push(deployment.cluster);
    if (targets.empty()) return {};
    std::map<std::string, std::string> local;  // source -> sha256 ("" unreadable)
    for (const auto& file : deployment.cluster.files)
        if (!local.count(file.source)) local[file.source] = util::sha256_file_hex(file.source).value_or("");
    std::map<std::string, FileDrift> drift;  // by dest
    std::mutex mutex;
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& target = targets[i];
        std::vector<std::string> paths;
        for (const auto& file : target.files) paths.push_back(file.dest);
        const auto answer = deployment.executor->run(target.node, push::probe_command(paths));
        const auto remote = answer.ok() ? push::parse_probe(answer.out, paths.size()) : std::nullopt;
        std::lock_guard lock(mutex);
        if (!remote) {
            unreachable.emplace(target.node.name, exec::failure_reason(answer));
            return;
        }
        for (std::size_t f = 0; f < paths.size(); ++f) {
            const auto& spec = target.files[f];
            const auto& held = (*remote)[f];
            auto& entry = drift[spec.dest];
            entry.source = spec.source;
            entry.dest = spec.dest;
            if (held.kind != push::RemoteFile::Kind::Regular)
                entry.missing.push_back(target.node.name);
            else if (held.sha256 != local[spec.source])
                entry.differs.push_back(target.node.name);
        }
    });
    std::vector<FileDrift> files;
    for (auto& [dest, entry] : drift) {
        if (entry.differs.empty() && entry.missing.empty()) continue;
        std::sort(entry.differs.begin(), entry.differs.end());
        std::sort(entry.missing.begin(), entry.missing.end());
        files.push_back(std::move(entry));
    }
    return files;
}

constexpr auto kWorkerListTimeout = std::chrono::seconds(3);

void read_membership(const Deployment& deployment, const plan::RouterFacts& facts, GroupDrift& group) {
    const auto listed =
        health::RouterWorkerApi(*deployment.prober, facts.url, kWorkerListTimeout).list(group.workers_unread);
    if (listed) group.workers = engine::membership_drift(facts, *listed);
}

// A removed group and an added one on the same nodes, of the other mode: one group whose role changed.
void pair_role_changes(std::vector<GroupDrift>& groups) {
    for (auto& added : groups) {
        if (added.diff.change != plan::GroupChange::kAdded) continue;
        for (auto removed = groups.begin(); removed != groups.end(); ++removed) {
            if (removed->diff.change != plan::GroupChange::kRemoved) continue;
            const auto& before = removed->diff.nodes_before;
            const bool shared = std::any_of(
                added.diff.nodes_after.begin(), added.diff.nodes_after.end(), [&](const std::string& node) {
                    return std::find(before.begin(), before.end(), node) != before.end();
                });
            if (!shared || removed->diff.mode_before == added.diff.mode_after) continue;
            added.diff.change = plan::GroupChange::kRoleChanged;
            added.diff.running_stage = removed->diff.stage;
            added.diff.mode_before = removed->diff.mode_before;
            added.diff.nodes_before = before;
            added.diff.image_before = removed->diff.image_before;
            added.running_from = removed->running_from;
            added.running_config_id = removed->running_config_id;
            added.unexplained = removed->unexplained;
            added.units_running = removed->units_running;
            groups.erase(removed);
            break;
        }
    }
}

}  // namespace

bool GroupDrift::differs() const {
    return diff.change != plan::GroupChange::kSame || !image_moved.empty() || !workers.empty();
}

bool DiffResult::differs() const {
    return !files.empty() ||
           std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.differs(); });
}

DiffResult diff_deployment(const Deployment& deployment) {
    DiffResult result;
    result.cluster = deployment.cluster.name;
    const auto observation = engine::observe_all(deployment.plan, *deployment.executor);
    std::map<std::string, std::vector<RunningUnit>> running;  // stage -> its running units
    std::vector<std::string> running_order;                   // stages in the order first seen
    for (const auto& [name, node] : observation.nodes) {
        if (!node.transport_error.empty())
            result.unreachable[name] = node.transport_error;
        else if (!node.inspect_error.empty())
            result.unreachable[name] = node.inspect_error;
        for (const auto& observed : node.units) {
            const auto& state = observed.state;
            if (!state.running) continue;
            const auto role = state.labels.find("pdctl.role");
            const auto config = state.labels.find("pdctl.config");
            if (role == state.labels.end()) continue;
            if (!running.count(role->second)) running_order.push_back(role->second);
            running[role->second].push_back(
                {name, state.unit, config == state.labels.end() ? "" : config->second, state.image_id});
        }
    }
    KeptPlans kept(deployment);
    result.journal_source = kept.source();
    const auto ids_now = image_ids_now(deployment, running);

    for (const auto& stage : deployment.plan.stages) {
        GroupDrift group;
        group.units_wanted = static_cast<int>(stage.units.size());
        const auto found = running.find(stage.role);
        if (found == running.end()) {
            group.diff = plan::diff_stage(stage, stage);
            group.diff.change = plan::GroupChange::kAdded;
            group.diff.mode_before.clear();
            group.diff.nodes_before.clear();
            group.diff.image_before.clear();
            result.groups.push_back(std::move(group));
            continue;
        }
        const auto& units = found->second;
        group.units_running = static_cast<int>(units.size());
        if (same_as_wanted(stage, units)) {
            group.diff = plan::diff_stage(stage, stage);
        } else if (const auto explained = kept.explain(stage.role, units); explained.stage) {
            group.diff = plan::diff_stage(*explained.stage, stage);
            group.diff.nodes_before = nodes_of(units);
            group.running_from = explained.run;
            group.running_config_id = explained.config_id;
            // Fingerprints differ though rank 0's program does not: a rank's own setting, or a rank missing.
            group.diff.change = plan::GroupChange::kChanged;
        } else {
            group.diff = plan::diff_stage(stage, stage);
            group.diff.change = plan::GroupChange::kChanged;
            group.diff.nodes_before = nodes_of(units);
            group.diff.image_before.clear();
            group.unexplained = true;
        }
        if (group.diff.image_before == group.diff.image_after && !stage.runtime.image.empty())
            for (const auto& unit : units) {
                const auto node = ids_now.find(unit.node);
                if (node == ids_now.end() || unit.image_id.empty()) continue;
                const auto now = node->second.find(stage.runtime.image);
                if (now == node->second.end() || now->second == unit.image_id) continue;
                group.image_moved.push_back(
                    fmt::format("{}: runs {}, {} is now {}", unit.node, unit.image_id, stage.runtime.image,
                                now->second.empty() ? "not on the node" : now->second));
            }
        if (stage.router && stage.router->worker_api()) read_membership(deployment, *stage.router, group);
        result.groups.push_back(std::move(group));
    }
    for (const auto& role : running_order) {
        if (deployment.plan.find_stage(role)) continue;
        const auto& units = running.at(role);
        GroupDrift group;
        group.units_running = static_cast<int>(units.size());
        if (const auto explained = kept.explain(role, units); explained.stage) {
            group.diff = plan::diff_stage(*explained.stage, *explained.stage);
            group.running_from = explained.run;
            group.running_config_id = explained.config_id;
            group.diff.nodes_after.clear();
            group.diff.mode_after.clear();
            group.diff.image_after.clear();
        } else {
            group.unexplained = true;
        }
        group.diff.stage = role;
        group.diff.nodes_before = nodes_of(units);
        group.diff.change = plan::GroupChange::kRemoved;
        result.groups.push_back(std::move(group));
    }
    pair_role_changes(result.groups);
    result.files = file_drift(deployment, result.unreachable);
    return result;
}

}  // namespace pdctl::ops
