// pdctl stack [--role R] [--group G]: a Python stack dump (py-spy dump) of every rank of the selected
// sglang groups, in parallel, folded by where the ranks are, the odd ones out named: which rank of a
// hung group the others wait for (sglang #12121, #6864).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/report/stack_view.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/parallel.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct StackTarget {
    const plan::Stage* stage;
    const plan::Unit* unit;
    exec::Command command;
};

ExitCode stack_command(const GlobalOptions& global, const plan::Scope& scope) {
    auto context = load_context(global, Purpose::kOnNodes, "stack");
    const auto scoped = plan::scope_plan(context.plan, scope, "stack");
    std::vector<StackTarget> targets;
    for (const auto& stage : scoped.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang) continue;
        for (const auto& unit : stage.units) {
            const auto node_runtime = runtime::make_runtime(
                stage.runtime,
                config::node_state_dir(stage.runtime.state_dir, scoped.plan.cluster, unit.node));
            targets.push_back({&stage, &unit, node_runtime->python_stack(unit.name, stage.py_spy)});
        }
    }
    if (targets.empty())
        throw Failure(ExitCode::kUsage, "no sglang role in the selection: `pdctl stack` dumps SGLang ranks",
                      "pick one with --role or --group");
    std::vector<report::RankDump> dumps(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& target = targets[i];
        const auto* node = context.cluster.find_node(target.unit->node);
        dumps[i] = {target.stage->role, target.unit->rank, target.unit->node,
                    context.executor->run(*node, target.command)};
    });
    const auto text =
        global.json ? report::stack_to_json(dumps).dump(2) + "\n" : report::render_stack_text(dumps);
    fmt::print("{}", context.redactor.redact(text));
    return report::stack_exit_code(dumps);
}

}  // namespace

void add_stack_verb(CLI::App& app, Verbs& verbs) {
    auto* command = app.add_subcommand(
        "stack",
        "Python stack of every rank (py-spy dump), folded by where the ranks are; names the odd ones out");
    auto scope = std::make_shared<plan::Scope>();
    add_scope_flags(*command, *scope);
    verbs.add(command, [scope](const GlobalOptions& global) { return stack_command(global, *scope); });
}

}  // namespace pdctl::cli
