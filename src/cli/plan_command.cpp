// pdctl plan [start|stop|restart]: the stages and every node's exact commands; touches no node.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>

#include "engine_verb.hpp"
#include "pdctl/ops/journal_queries.hpp"
#include "pdctl/plan/rolling.hpp"
#include "pdctl/report/plan_view.hpp"
#include "pdctl/report/rolling_view.hpp"
#include "pdctl/report/transport_view.hpp"
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
    // How each node is reached is decided before anything connects, so the plan can show it.
    const auto transports = ops::transport_choices(context);
    if (options.rolling && options.verb != "restart")
        throw Failure(ExitCode::kUsage,
                      "--rolling goes with `plan restart`, not `plan " + options.verb + "`");
    auto scoped = plan::scope_plan(context.plan, options.scope, options.verb);
    // The deadlines start would use, learned from this machine's copy of the journal: plan touches no
    // node (start reads the coordinator's, which also holds other operators' runs).
    std::string journal_note;
    if (options.verb != "stop") {
        const auto learned = ops::local_start_history(context.cluster);
        apply_deadline_flags(scoped.plan, learned.history, options.deadline_policy, options.deadline_floor);
        journal_note = "deadlines learned from " + learned.source;
    }
    std::optional<plan::RollingPlan> rolling;
    if (options.rolling)
        rolling = plan::rolling_plan(context.plan, options.scope, options.allow_router_restart);
    std::string text;
    if (global.json && rolling) {
        text = report::rolling_to_json(*rolling).dump(2);
    } else if (rolling) {
        text = report::render_rolling_text(*rolling);
    } else if (global.json) {
        auto doc = report::plan_to_json(scoped.plan, options.verb);
        if (!transports.empty()) doc["ssh_transports"] = report::transports_to_json(transports);
        if (!options.scope.empty()) doc["moves_with"] = scoped.closure;
        text = doc.dump(2);
    } else {
        text = report::render_plan_text(scoped.plan, options.verb);
        for (const auto& stage : scoped.plan.stages)
            if (timeline::deadline_learned(stage.gate)) {
                text += journal_note + "\n";
                break;
            }
        for (const auto& why : scoped.closure) text += "also: " + why + "\n";
        if (!transports.empty()) text += "\n" + report::render_transports_text(transports);
    }
    fmt::print("{}\n", context.redactor.redact(text));
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
