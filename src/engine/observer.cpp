#include "pdctl/engine/observer.hpp"

#include <set>

#include "pdctl/config/state_paths.hpp"
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
    // Which runtimes to ask on each node: a node can host process units and containers at once.
    std::map<std::string, std::vector<runtime::RuntimeSpec>> runtimes;
    for (const auto& stage : plan.stages) {
        for (const auto& unit : stage.units) {
            auto& list = runtimes[unit.node];
            bool seen = false;
            for (const auto& spec : list)
                seen = seen || (spec.kind == stage.runtime.kind && spec.cli == stage.runtime.cli);
            if (!seen) list.push_back(stage.runtime);
        }
    }
    std::vector<NodeObservation> results(nodes.size());
    util::for_each_parallel(nodes.size(), util::kEngineFanout, [&](std::size_t i) {
        auto& result = results[i];
        result.node = nodes[i];
        const config::Node* node = nullptr;
        for (const auto& candidate : plan.nodes)
            if (candidate.name == nodes[i]) node = &candidate;
        if (!node) return;
        for (const auto& spec : runtimes[node->name]) {
            const auto rt =
                runtime::make_runtime(spec, config::node_state_dir(spec.state_dir, plan.cluster, node->name));
            const auto answer = executor.run(*node, rt->inspect(plan.cluster));
            if (!answer.transport_error.empty()) {
                result.transport_error = answer.transport_error;
                return;
            }
            if (!answer.ok()) {
                // Never empty: an empty error would read as a node with no units.
                result.inspect_error = "inspect " + exec::failure_reason(answer);
                continue;
            }
            for (auto& unit : rt->parse_inspect(answer.out)) {
                // Containers are listed by cluster label on every node; keep those that belong here.
                auto labelled_node = unit.labels.find("pdctl.node");
                if (labelled_node != unit.labels.end() && labelled_node->second != node->name) continue;
                result.units.push_back({std::move(unit), spec});
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
