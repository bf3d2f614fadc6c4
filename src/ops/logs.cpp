#include "pdctl/ops/logs.hpp"

#include <algorithm>
#include <sstream>

#include "log_follow.hpp"
#include "log_targets.hpp"
#include "pdctl/runtime/log_query.hpp"
#include "pdctl/util/strings.hpp"

namespace pdctl::ops {
namespace {

constexpr int kDefaultTail = 50;

}  // namespace

ExitCode show_logs(const Deployment& deployment, const LogsRequest& request, LogSink& sink) {
    const auto scoped = plan::scope_plan(deployment.plan, logs_scope(deployment.plan, request), "logs");
    runtime::LogRequest read;
    if (!request.since.empty()) {
        read.since = runtime::parse_since(request.since);
        if (!read.since)
            throw Failure(ExitCode::kUsage, "--since: cannot read '" + request.since + "'",
                          std::string("use ") + runtime::kSinceForms);
    }
    // --since shows every line from then on unless --tail also limits them.
    read.tail_lines = request.tail >= 0 ? request.tail : (read.since ? -1 : kDefaultTail);
    if (request.follow && request.previous)
        throw Failure(ExitCode::kUsage, "--follow and --previous: a kept log no longer grows",
                      "pick one: --previous shows what a stopped or replaced unit left");
    const auto targets = log_targets(deployment, scoped.plan, request);
    sink.begin(targets);
    if (request.follow)
        return follow_logs(*deployment.executor, *deployment.clock, targets, read, request.poll_interval,
                           sink);

    ExitCode code = ExitCode::kOk;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const auto& target = targets[i];
        const auto command =
            request.previous ? runtime::previous_log_command(target.node_dir, target.unit->name, read)
            : read.since ? runtime::read_log_command(target.runtime, target.node_dir, target.unit->name, read)
                         : target.unit->runtime->logs(target.unit->name, read.tail_lines);
        const auto answer = deployment.executor->run(*target.node, command);
        if (!answer.transport_error.empty()) {
            sink.unreachable(i, answer.transport_error);
            code = ExitCode::kUnreachable;
            continue;
        }
        std::istringstream in(answer.out + answer.err);
        std::string line;
        while (std::getline(in, line)) sink.line(i, line);
        if (answer.exit_code != 0)
            sink.line(i, request.previous
                             ? "pdctl: no kept log of " + target.unit->name +
                                   ": pdctl has not stopped or replaced it on this node"
                             : "pdctl: no current log of " + target.unit->name +
                                   " (not running?): `--previous` shows the log it left when it was "
                                   "stopped or replaced");
    }
    return code;
}

}  // namespace pdctl::ops
