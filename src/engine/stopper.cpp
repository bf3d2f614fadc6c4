#include "stopper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <set>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/parallel.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {
namespace {

// The reachable nodes that ran sglang units: the ones whose GPUs a stop must see released.
std::vector<std::string> sglang_nodes(const plan::Plan& plan, const std::set<std::string>& unreachable) {
    std::set<std::string> nodes;
    for (const auto& stage : plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        for (const auto& unit : stage.units)
            if (!unreachable.count(unit.node)) nodes.insert(unit.node);
    }
    return {nodes.begin(), nodes.end()};
}

}  // namespace

std::vector<StopFailure> Stopper::stop_stages(const std::vector<const plan::Stage*>& stages,
                                              const std::string& verb, const std::set<std::string>& skip) {
    std::vector<StopFailure> failures;
    for (const auto* stage : stages) {
        run_.reporter.stage_begin(verb, *stage);
        auto failed = run_.backend.stop(run_.plan, *stage, verb, skip, run_.reporter);
        failures.insert(failures.end(), failed.begin(), failed.end());
    }
    return failures;
}

std::vector<StopFailure> Stopper::stop_leftovers(const Observation& observation,
                                                 std::set<std::string>& stopped_on) {
    std::vector<StopFailure> failures;
    std::set<std::string> planned;
    for (const auto& stage : run_.plan.stages)
        for (const auto& unit : stage.units) planned.insert(unit.node + "/" + unit.name);
    for (const auto& [name, node_state] : observation.nodes) {
        for (const auto& observed : node_state.units) {
            if (planned.count(name + "/" + observed.state.unit)) continue;
            const auto command = observed.runtime->stop(observed.state.unit);
            const auto answer = run_.executor.run(run_.node(name), command);
            auto failure =
                stop_failure(answer, command, observed.state.unit + " (not in the current config)", name);
            run_.reporter.note(fmt::format("stopped {} on {} (not in the current config): {}",
                                           observed.state.unit, name, failure ? failure->what : "ok"));
            stopped_on.insert(name);
            if (failure) failures.push_back(std::move(*failure));
        }
    }
    return failures;
}

std::string Stopper::describe(const std::vector<StopFailure>& failures) const {
    std::string text;
    for (const auto& failure : failures)
        text += fmt::format("{}{} on {} ({}): {}", text.empty() ? "" : "; ", failure.unit, failure.node,
                            run_.node(failure.node).address, failure.what);
    return text;
}

ExitCode Stopper::stop() {
    const auto began = run_.clock.now();
    run_.reporter.run_begin("stop", run_.plan);
    const auto observation = observe_all(run_.plan, run_.executor);

    std::set<std::string> unreachable;
    for (const auto& [name, node_state] : observation.nodes) {
        if (node_state.transport_error.empty()) continue;
        unreachable.insert(name);
        run_.reporter.note(fmt::format("{} is unreachable, its units cannot be stopped: {}", name,
                                       node_state.transport_error));
    }

    // Units of this cluster that the plan no longer names (a role removed or renamed since start):
    // stopped first, since nothing in the plan orders them.
    std::set<std::string> leftover_nodes;
    const auto leftovers =
        run_.options.scoped ? std::vector<StopFailure>{} : stop_leftovers(observation, leftover_nodes);

    std::vector<const plan::Stage*> reversed;
    for (auto it = run_.plan.stages.rbegin(); it != run_.plan.stages.rend(); ++it) {
        bool any = false;
        for (const auto& unit : it->units) any = any || !unreachable.count(unit.node);
        if (any) reversed.push_back(&*it);
    }
    auto failures = stop_stages(reversed, "stop", unreachable);
    failures.insert(failures.begin(), leftovers.begin(), leftovers.end());

    // A unit that is still there is reported before an unreachable node: it is known to hold its
    // node (and GPUs), and starting anything now would collide with it.
    bool any_still_there = false;
    for (const auto& failure : failures) any_still_there = any_still_there || !failure.unreachable;
    // Every unit is gone: the GPUs its sglang ranks held must be free too before "stopped" is true.
    std::vector<std::string> gpus_held;
    if (!any_still_there) {
        auto nodes = sglang_nodes(run_.plan, unreachable);
        for (const auto& name : leftover_nodes)  // a removed group's ranks held GPUs too
            if (!unreachable.count(name) && std::find(nodes.begin(), nodes.end(), name) == nodes.end())
                nodes.push_back(name);
        gpus_held = wait_for_gpu_release(nodes);
    }
    const auto elapsed = std::chrono::duration_cast<Duration>(run_.clock.now() - began);
    if (any_still_there) {
        run_.reporter.run_end({"stop",
                               ExitCode::kStopFailed,
                               "could not stop " + describe(failures) +
                                   "; it still runs (see status); run stop again once it can be killed",
                               elapsed,
                               {}});
        return ExitCode::kStopFailed;
    }
    for (const auto& failure : failures) unreachable.insert(failure.node);
    if (!unreachable.empty()) {
        const auto names = util::join({unreachable.begin(), unreachable.end()});
        run_.reporter.run_end(
            {"stop", ExitCode::kUnreachable, "could not reach " + names + "; run stop again", elapsed, {}});
        return ExitCode::kUnreachable;
    }
    if (!gpus_held.empty()) {
        run_.reporter.run_end({"stop",
                               ExitCode::kGpusBusy,
                               "every unit stopped, but GPU memory is still in use after " +
                                   util::format_elapsed(run_.options.gpu_release_timeout) + ": " +
                                   util::join(gpus_held, "; ") +
                                   "; find the holder (`nvidia-smi` on the node) before starting again",
                               elapsed,
                               {}});
        return ExitCode::kGpusBusy;
    }
    run_.reporter.run_end({"stop", ExitCode::kOk, "stopped", elapsed, {}});
    return ExitCode::kOk;
}

}  // namespace pdctl::engine
