#include "pdctl/engine/backend.hpp"

#include <fmt/format.h>

#include "pdctl/util/strings.hpp"

namespace pdctl::engine {

std::optional<StopFailure> stop_failure(const exec::CommandResult& answer, const exec::Command& stop,
                                        std::string unit, const std::string& node_name) {
    if (answer.ok()) return std::nullopt;
    StopFailure failure{std::move(unit), node_name, !answer.transport_error.empty(), ""};
    if (failure.unreachable) {
        failure.what = "unreachable: " + answer.transport_error;
    } else if (answer.timed_out) {
        failure.what = fmt::format("the stop command did not finish within {}s",
                                   std::chrono::duration_cast<std::chrono::seconds>(stop.timeout).count());
    } else {
        const auto& text = answer.err.empty() ? answer.out : answer.err;
        failure.what = util::first_line(text);
        if (failure.what.rfind("pdctl: ", 0) == 0) failure.what.erase(0, 7);
        if (failure.what.empty()) failure.what = fmt::format("exit {}", answer.exit_code);
    }
    return failure;
}

const config::Node& plan_node(const plan::Plan& plan, const std::string& name) {
    for (const auto& candidate : plan.nodes)
        if (candidate.name == name) return candidate;
    throw Failure(ExitCode::kInternal, "plan names unknown node " + name);
}

}  // namespace pdctl::engine
