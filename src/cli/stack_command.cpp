// pdctl stack [--role R] [--group G]: a Python stack dump (py-spy dump) of every rank of the selected
// sglang groups, in parallel, folded by where the ranks are, the odd ones out named: which rank of a
// hung group the others wait for (sglang #12121, #6864).
#include <CLI/CLI.hpp>
#include <memory>

#include "pdctl/ops/stack.hpp"
#include "pdctl/plan/scope.hpp"
#include "pdctl/report/stack_view.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

ExitCode stack_command(const GlobalOptions& global, const plan::Scope& scope) {
    auto context = load_context(global, Purpose::kOnNodes, "stack");
    const auto dumps = ops::dump_stacks(context, scope);
    print_result(
        global, context.redactor, [&] { return report::stack_to_json(dumps); },
        [&] { return report::render_stack_text(dumps); });
    return ops::stack_exit_code(dumps);
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
