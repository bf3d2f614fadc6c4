#include <fmt/format.h>

#include <mutex>
#include <set>

#include "pdctl/engine/engine.hpp"
#include "pdctl/runtime/runtime.hpp"

namespace pdctl::engine {

void Engine::stop_stages(const std::vector<const plan::Stage*>& stages, const std::string& verb) {
    std::mutex mutex;
    for (const auto* stage : stages) {
        reporter_.stage_begin(verb, *stage);
        parallel_for(stage->units.size(), [&](std::size_t i) {
            const auto& unit = stage->units[i];
            const auto answer = executor_.run(node(unit.node), unit.stop);
            std::lock_guard lock(mutex);
            std::string detail = answer.ok() ? answer.out.substr(0, answer.out.find('\n'))
                                             : fmt::format("stop failed: {}", answer.transport_error.empty()
                                                                                  ? answer.err
                                                                                  : answer.transport_error);
            reporter_.unit_done(verb, unit, detail);
        });
    }
}

ExitCode Engine::stop() {
    const auto began = clock_.now();
    reporter_.run_begin("stop", plan_);
    const auto observation = observe_all(plan_, executor_);

    std::set<std::string> unreachable;
    for (const auto& [name, node_state] : observation.nodes) {
        if (node_state.transport_error.empty()) continue;
        unreachable.insert(name);
        reporter_.note(fmt::format("{} is unreachable, its units cannot be stopped: {}", name,
                                   node_state.transport_error));
    }

    // Units of this cluster that the plan no longer names (a role removed or renamed since start):
    // stopped first, since nothing in the plan orders them.
    std::set<std::string> planned;
    for (const auto& stage : plan_.stages)
        for (const auto& unit : stage.units) planned.insert(unit.node + "/" + unit.name);
    for (const auto& [name, node_state] : observation.nodes) {
        for (const auto& observed : node_state.units) {
            if (planned.count(name + "/" + observed.state.unit)) continue;
            const auto rt = runtime::make_runtime(
                observed.runtime, runtime::node_state_dir(observed.runtime.state_dir, plan_.cluster, name));
            const auto answer = executor_.run(node(name), rt->stop(observed.state.unit));
            reporter_.note(fmt::format("stopped {} on {} (not in the current config): {}",
                                       observed.state.unit, name, answer.ok() ? "ok" : answer.err));
        }
    }

    std::vector<const plan::Stage*> reversed;
    for (auto it = plan_.stages.rbegin(); it != plan_.stages.rend(); ++it) {
        // Units on unreachable nodes are left out: their stop would only time out.
        bool any = false;
        for (const auto& unit : it->units) any = any || !unreachable.count(unit.node);
        if (any) reversed.push_back(&*it);
    }
    stop_stages(reversed, "stop");

    const auto elapsed = std::chrono::duration_cast<Duration>(clock_.now() - began);
    if (!unreachable.empty()) {
        std::string names;
        for (const auto& name : unreachable) names += (names.empty() ? "" : ", ") + name;
        reporter_.run_end(
            {"stop", ExitCode::kUnreachable, "could not reach " + names + "; run stop again", elapsed, {}});
        return ExitCode::kUnreachable;
    }
    reporter_.run_end({"stop", ExitCode::kOk, "stopped", elapsed, {}});
    return ExitCode::kOk;
}

ExitCode Engine::restart() {
    const auto stopped = stop();
    if (stopped != ExitCode::kOk) return stopped;
    return start();
}

}  // namespace pdctl::engine
