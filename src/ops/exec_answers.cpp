#include "pdctl/ops/exec.hpp"
#include "pdctl/util/parallel.hpp"

namespace pdctl::ops {

ExitCode exec_exit_code(const std::vector<ExecAnswer>& answers) {
    bool failed = false;
    for (const auto& answer : answers) {
        if (!answer.result.transport_error.empty()) return ExitCode::kUnreachable;
        failed = failed || !answer.result.ok();
    }
    return failed ? ExitCode::kCommandFailed : ExitCode::kOk;
}

std::vector<ExecAnswer> run_exec(const Deployment& deployment, const ExecRequest& request,
                                 ExecStream* stream) {
    auto targets = plan::exec_targets(deployment.plan, request.selection, request.argv, request.timeout);
    if (stream) {
        std::vector<std::string> labels;
        for (std::size_t i = 0; i < targets.size(); ++i) {
            labels.push_back(targets[i].label);
            targets[i].command.on_output = [stream, i](bool error_stream, std::string_view chunk) {
                stream->output(i, error_stream, chunk);
            };
        }
        stream->begin(labels);
    }
    std::vector<ExecAnswer> answers(targets.size());
    util::for_each_parallel(targets.size(), util::kEngineFanout, [&](std::size_t i) {
        const auto& target = targets[i];
        const auto* node = deployment.cluster.find_node(target.node);
        answers[i] = {target.label, target.node, target.unit,
                      deployment.on_nodes->run(*node, target.command)};
        if (stream) stream->ended(i);
    });
    return answers;
}

}  // namespace pdctl::ops
