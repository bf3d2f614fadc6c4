#include <fmt/format.h>

#include <sstream>

#include "commands.hpp"
#include "pdctl/runtime/runtime.hpp"

namespace pdctl::cli {

ExitCode logs_command(const GlobalOptions& global, const LogsOptions& options) {
    auto context = load_context(global);
    auto& executor = require_executor(context);
    const auto* stage = context.plan.find_stage(options.role);
    if (!stage) {
        std::string roles;
        for (const auto& candidate : context.plan.stages)
            roles += (roles.empty() ? "" : ", ") + candidate.role;
        throw Failure(ExitCode::kUsage, "no role named '" + options.role + "'", "roles: " + roles);
    }
    std::vector<const plan::Unit*> units;
    for (const auto& unit : stage->units) {
        if (!options.node.empty() && unit.node != options.node) continue;
        if (options.rank >= 0 && unit.rank != options.rank) continue;
        units.push_back(&unit);
    }
    if (units.empty())
        throw Failure(ExitCode::kUsage, "no unit of " + options.role + " matches --node/--rank");

    ExitCode code = ExitCode::kOk;
    for (const auto* unit : units) {
        const auto* node = context.cluster.find_node(unit->node);
        const auto rt = runtime::make_runtime(
            stage->runtime,
            runtime::node_state_dir(context.cluster.state_dir, context.cluster.name, unit->node));
        const auto answer = executor.run(*node, rt->logs(unit->name, options.tail));
        if (!answer.transport_error.empty()) {
            fmt::print(stderr, "{}: unreachable: {}\n", unit->node, answer.transport_error);
            code = ExitCode::kUnreachable;
            continue;
        }
        const std::string prefix =
            units.size() > 1 ? fmt::format("[{} rank{}] ", unit->node, unit->rank) : "";
        std::istringstream in(answer.out + answer.err);
        std::string line;
        while (std::getline(in, line)) fmt::print("{}{}\n", prefix, context.redactor.redact(line));
    }
    return code;
}

}  // namespace pdctl::cli
