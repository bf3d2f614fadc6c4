// pdctl logs ROLE: a role's log lines, the last ones, --since a moment, or --follow.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <sstream>

#include "log_follower.hpp"
#include "pdctl/config/state_paths.hpp"
#include "pdctl/report/logs_view.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/runtime/runtime.hpp"
#include "pdctl/util/strings.hpp"
#include "scope_flags.hpp"
#include "verbs.hpp"

namespace pdctl::cli {
namespace {

constexpr int kDefaultTail = 50;

struct LogsOptions {
    std::string role;   // positional: a role or a group
    plan::Scope scope;  // --role / --group
    std::string node;
    int rank = -1;
    int tail = -1;      // -1: kDefaultTail lines, or every line with --since
    std::string since;  // runtime::parse_since
    bool follow = false;
};

ExitCode logs_command(const GlobalOptions& global, const LogsOptions& options) {
    auto context = load_context(global);
    auto& executor = *context.executor;
    // The positional ROLE names a `roles:` entry (every group) or one group (prefill-2).
    plan::Scope scope = options.scope;
    if (!options.role.empty()) {
        const bool entry = std::any_of(context.plan.stages.begin(), context.plan.stages.end(),
                                       [&](const plan::Stage& s) { return s.config_role == options.role; });
        (entry || !context.plan.find_stage(options.role) ? scope.roles : scope.groups)
            .push_back(options.role);
    }
    if (scope.empty())
        throw Failure(ExitCode::kUsage, "which role's logs?",
                      "name a role: pdctl logs ROLE, or --role ROLE / --group GROUP");
    const auto scoped = plan::scope_plan(context.plan, scope, "logs");
    runtime::LogRequest request;
    if (!options.since.empty()) {
        request.since = runtime::parse_since(options.since);
        if (!request.since)
            throw Failure(ExitCode::kUsage, "--since: cannot read '" + options.since + "'",
                          std::string("use ") + runtime::kSinceForms);
    }
    // --since shows every line from then on unless --tail also limits them.
    request.tail_lines = options.tail >= 0 ? options.tail : (request.since ? -1 : kDefaultTail);

    std::vector<FollowTarget> targets;
    for (const auto& stage : scoped.plan.stages) {
        for (const auto& unit : stage.units) {
            if (!options.node.empty() && unit.node != options.node) continue;
            if (options.rank >= 0 && unit.rank != options.rank) continue;
            targets.push_back(
                {&unit, context.cluster.find_node(unit.node), stage.runtime,
                 config::node_state_dir(context.cluster.state_dir, context.cluster.name, unit.node), ""});
        }
    }
    if (targets.empty()) {
        std::vector<std::string> names;
        for (const auto& stage : scoped.plan.stages) names.push_back(stage.role);
        throw Failure(ExitCode::kUsage, "no unit of " + util::join(names, ", ") + " matches --node/--rank");
    }
    if (targets.size() > 1)
        for (auto& target : targets)
            target.prefix = report::log_line_prefix(target.unit->node, target.unit->rank);

    if (options.follow) return follow_logs(context, executor, targets, request);

    ExitCode code = ExitCode::kOk;
    for (const auto& target : targets) {
        const auto command = request.since ? runtime::read_log_command(target.runtime, target.node_dir,
                                                                       target.unit->name, request)
                                           : runtime::make_runtime(target.runtime, target.node_dir)
                                                 ->logs(target.unit->name, request.tail_lines);
        const auto answer = executor.run(*target.node, command);
        if (!answer.transport_error.empty()) {
            fmt::print(stderr, "{}\n",
                       report::log_unreachable_line(target.unit->node, answer.transport_error));
            code = ExitCode::kUnreachable;
            continue;
        }
        std::istringstream in(answer.out + answer.err);
        std::string line;
        while (std::getline(in, line)) fmt::print("{}{}\n", target.prefix, context.redactor.redact(line));
    }
    return code;
}

}  // namespace

void add_logs_verb(CLI::App& app, Verbs& verbs) {
    auto options = std::make_shared<LogsOptions>();
    auto* command =
        app.add_subcommand("logs", "a role's log lines: the last ones, --since a moment, or --follow");
    command->add_option("role", options->role, "role name (every group of it), or one group's name")
        ->type_name("ROLE|GROUP");
    add_scope_flags(*command, options->scope);
    command->add_option("--node", options->node, "only this node")->type_name("NODE");
    command->add_option("--rank", options->rank, "only this rank");
    command->add_option("--tail", options->tail, "lines per unit (default 50; with --since, every line)");
    command->add_option("--since", options->since,
                        "only lines from this moment on: a duration (90s, 10m, 2h) or a time on the node "
                        "(2026-11-29 08:12[:03])");
    command->add_flag("-f,--follow", options->follow, "keep printing new lines until Ctrl-C");
    verbs.add(command, [options](const GlobalOptions& global) { return logs_command(global, *options); });
}

}  // namespace pdctl::cli
