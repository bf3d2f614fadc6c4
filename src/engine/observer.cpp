#include "pdctl/engine/observer.hpp"

#include <algorithm>
#include <set>

#include "pdctl/exec/command.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::engine {

const ObservedUnit* Observation::find(const std::string& node, const std::string& unit) const {
    auto it = nodes.find(node);
    if (it == nodes.end()) return nullptr;
    for (const auto& observed : it->second.units)
        if (observed.state.unit == unit) return &observed;
    return nullptr;
}

Observation observe(const plan::Plan& plan, exec::Executor& executor, const std::vector<std::string>& nodes) {
    // Which runtimes to ask on each node: a node can host process units and containers at once. One
    // unit of each speaks for its runtime there: its inspect command lists them all.
    std::map<std::string, std::vector<const plan::Unit*>> runtimes;
    std::map<std::string, std::vector<const runtime::RuntimeSpec*>> specs;
    for (const auto& stage : plan.stages) {
        for (const auto& unit : stage.units) {
            auto& seen = specs[unit.node];
            const bool known = std::any_of(seen.begin(), seen.end(), [&](const runtime::RuntimeSpec* spec) {
                return spec->kind == stage.runtime.kind && spec->cli == stage.runtime.cli;
            });
            if (known) continue;
            seen.push_back(&stage.runtime);
            runtimes[unit.node].push_back(&unit);
        }
    }
    std::vector<NodeObservation> results(nodes.size());
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        auto& result = results[i];
        result.node = nodes[i];
        const config::Node* node = nullptr;
        for (const auto& candidate : plan.nodes)
            if (candidate.name == nodes[i]) node = &candidate;
        // find, never operator[]: this runs on several threads, and a node with no units here (a
        // filtered plan) must not insert into the shared map.
        if (!node) return;
        const auto speakers = runtimes.find(node->name);
        if (speakers == runtimes.end()) return;
        for (const auto* speaker : speakers->second) {
            const auto answer = executor.run(*node, speaker->inspect);
            if (!answer.transport_error.empty()) {
                result.transport_error = answer.transport_error;
                return;
            }
            if (!answer.ok()) {
                // Never empty: an empty error would read as a node with no units.
                result.inspect_error = "inspect " + exec::failure_reason(answer);
                continue;
            }
            for (auto& unit : speaker->runtime->parse_inspect(answer.out)) {
                // Containers are listed by cluster label on every node; keep those that belong here.
                auto labelled_node = unit.labels.find("pdctl.node");
                if (labelled_node != unit.labels.end() && labelled_node->second != node->name) continue;
                result.units.push_back({std::move(unit), speaker->runtime});
            }
        }
    });
    Observation observation;
    for (auto& result : results) observation.nodes[result.node] = std::move(result);
    return observation;
}

Observation observe_all(const plan::Plan& plan, exec::Executor& executor) {
    std::vector<std::string> names;
    for (const auto& node : plan.nodes) names.push_back(node.name);
    return observe(plan, executor, names);
}

}  // namespace pdctl::engine
