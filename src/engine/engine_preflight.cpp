// start's last look before it launches anything: the units it just replaced have let go of their
// GPUs, and the nodes of the stages to start pass the preflight (GPUs idle, ports free, images, RDMA).

#include <fmt/format.h>

#include <set>

#include "pdctl/engine/engine.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::engine {

std::optional<ExitCode> Engine::run_preflight(const std::vector<bool>& starting,
                                              const std::set<std::string>& freed, TimePoint began) {
    const auto elapsed = [&] { return std::chrono::duration_cast<Duration>(clock_.now() - began); };
    if (const auto held = wait_for_gpu_release({freed.begin(), freed.end()}); !held.empty()) {
        reporter_.run_end(
            {verb_,
             ExitCode::kGpusBusy,
             "the replaced units stopped, but GPU memory is still in use: " + util::join(held, "; "),
             elapsed(),
             {}});
        return ExitCode::kGpusBusy;
    }
    if (options_.preflight_skipped) {
        reporter_.note(
            "preflight skipped (--skip-preflight): GPUs, ports, images and RDMA devices not checked");
        return std::nullopt;
    }
    std::vector<std::string> roles;
    for (std::size_t i = 0; i < plan_.stages.size(); ++i)
        if (starting[i]) roles.push_back(plan_.stages[i].role);
    const auto asked = clock_.now();
    const auto asked_answer = backend_.preflight(roles);
    if (!asked_answer) return std::nullopt;
    const auto& answer = *asked_answer;
    // Two decimals: the preflight is a sub-second step whose time bench/ reads from this line.
    const auto took = fmt::format(
        "{:.2f}s", std::chrono::duration_cast<std::chrono::duration<double>>(clock_.now() - asked).count());
    for (const auto& note : answer.notes) reporter_.note("preflight: " + note);
    if (answer.problems.empty()) {
        // Only what applied was checked (a simulated node has no GPUs): the notes above say what did not.
        reporter_.note(fmt::format("preflight passed on {} node{} in {}", answer.nodes,
                                   answer.nodes == 1 ? "" : "s", took));
        return std::nullopt;
    }
    for (const auto& problem : answer.problems) reporter_.note("preflight: " + problem);
    reporter_.note(
        fmt::format("preflight failed on {} node{} in {}", answer.nodes, answer.nodes == 1 ? "" : "s", took));
    reporter_.run_end(
        {verb_,
         ExitCode::kNodeCheckFailed,
         fmt::format("preflight found {} problem{} before anything started: {}", answer.problems.size(),
                     answer.problems.size() == 1 ? "" : "s", util::join(answer.problems, "; ")),
         elapsed(),
         {}});
    return ExitCode::kNodeCheckFailed;
}

}  // namespace pdctl::engine
