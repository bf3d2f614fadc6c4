// pdctl plan [start|stop|restart]: the stages and every node's exact commands; touches no node.
#include <CLI/CLI.hpp>
#include <memory>

#include "engine_verb.hpp"
#include "pdctl/ops/plan_verb.hpp"
#include "pdctl/report/plan_verb_view.hpp"
#include "print_result.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

struct PlanOptions {
    std::string verb = "start";
    plan::Scope scope;  // --role / --group
    bool rolling = false;
    bool allow_router_restart = false;
    std::string deadline_policy = "learned";
    std::string deadline_floor = "1m";
};

ExitCode plan_command(const GlobalOptions& global, const PlanOptions& options) {
    if (options.verb != "start" && options.verb != "stop" && options.verb != "restart")
        throw Failure(ExitCode::kUsage, "plan takes start, stop or restart, not '" + options.verb + "'");
    auto context = load_context(global, Purpose::kPlanOnly);
    ops::PlanRequest request;
    request.verb = options.verb;
    request.scope = options.scope;
    request.rolling = options.rolling;
    request.allow_router_restart = options.allow_router_restart;
    request.deadline_policy = deadline_policy(options.deadline_policy);
    request.deadline_floor = options.deadline_floor;
    const auto planned = ops::plan_verb(context, request);
    print_result(
        global, context.redactor, [&] { return report::planned_verb_to_json(planned, options.verb); },
        [&] { return report::render_planned_verb_text(planned, options.verb); });
    return ExitCode::kOk;
}

}  // namespace

void add_plan_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<PlanOptions>();
    auto* command =
        app.add_subcommand("plan", "print the stages and every node's exact commands; touches no node");
    command->add_option("verb", options->verb, "the verb to plan")
        ->type_name("start|stop|restart")
        ->capture_default_str();
    add_scope_flags(*command, options->scope);
    auto* rolling = command->add_flag("--rolling", options->rolling,
                                      "plan restart: the steps of `restart --rolling` (one group at a time)");
    command->add_flag("--allow-router-restart", options->allow_router_restart, "as for restart --rolling")
        ->needs(rolling);
    add_deadline_flags(*command, options->deadline_policy, options->deadline_floor);
    verbs.add(command, [options](const GlobalOptions& global) { return plan_command(global, *options); });
}

}  // namespace pdctl::cli
