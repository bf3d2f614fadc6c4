// start's last look before it launches anything: the units it just replaced have let go of their
// GPUs, and the nodes of the stages to start pass the preflight (GPUs idle, ports free, images, RDMA).

#include <fmt/format.h>

#include <set>

#include "pdctl/util/durations.hpp"
#include "pdctl/util/strings.hpp"
#include "starter.hpp"

namespace pdctl::engine {

std::optional<ExitCode> Starter::run_preflight(const std::vector<bool>& starting,
                                               const std::set<std::string>& freed, TimePoint began) {
    const auto elapsed = [&] { return std::chrono::duration_cast<Duration>(run_.clock.now() - began); };
    if (const auto held = stopper_.wait_for_gpu_release({freed.begin(), freed.end()}); !held.empty()) {
        run_.reporter.run_end(
            {run_.verb,
             ExitCode::kGpusBusy,
             "the replaced units stopped, but GPU memory is still in use: " + util::join(held, "; "),
             elapsed(),
             {}});
        return ExitCode::kGpusBusy;
    }
    if (run_.options.preflight_skipped) {
        run_.reporter.note(
            "preflight skipped (--skip-preflight): GPUs, ports, images and RDMA devices not checked");
        return std::nullopt;
    }
    std::vector<std::string> roles;
    for (std::size_t i = 0; i < run_.plan.stages.size(); ++i)
        if (starting[i]) roles.push_back(run_.plan.stages[i].role);
    const auto asked = run_.clock.now();
    const auto asked_answer = run_.backend.preflight(roles);
    if (!asked_answer) return std::nullopt;
    const auto& answer = *asked_answer;
    // Two decimals: the preflight is a sub-second step whose time bench/ reads from this line.
    const auto took = fmt::format("{:.2f}s", util::to_seconds(run_.clock.now() - asked));
    for (const auto& note : answer.notes) run_.reporter.note("preflight: " + note);
    if (answer.problems.empty()) {
        // Only what applied was checked (a simulated node has no GPUs): the notes above say what did not.
        run_.reporter.note(fmt::format("preflight passed on {} node{} in {}", answer.nodes,
                                       answer.nodes == 1 ? "" : "s", took));
        return std::nullopt;
    }
    for (const auto& problem : answer.problems) run_.reporter.note("preflight: " + problem);
    run_.reporter.note(
        fmt::format("preflight failed on {} node{} in {}", answer.nodes, answer.nodes == 1 ? "" : "s", took));
    run_.reporter.run_end(
        {run_.verb,
         ExitCode::kNodeCheckFailed,
         fmt::format("preflight found {} problem{} before anything started: {}", answer.problems.size(),
                     answer.problems.size() == 1 ? "" : "s", util::join(answer.problems, "; ")),
         elapsed(),
         {}});
    return ExitCode::kNodeCheckFailed;
}

}  // namespace pdctl::engine
