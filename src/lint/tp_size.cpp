// PD011: --tp-size is the group's total tensor parallelism across nodes (SGLang's PD docs, "DeepSeek
// Multi-Node": --tp-size 16 on 2 x 8 GPUs): with
// pipeline parallelism, or data parallelism without DP attention, each replica takes tp GPUs, so
// tp x pp x dp must equal nodes x gpus_per_node. Anything else leaves GPUs idle or fails to start
// after minutes of loading.

#include "pdctl/lint/argv.hpp"
#include "rule_support.hpp"

namespace pdctl::lint {

void check_tp_size(const RuleInput& input, FindingSink& sink) {
    for (const auto& stage : input.plan.stages) {
        if (stage.kind != config::RoleKind::Sglang || stage.units.empty()) continue;
        const auto* role = input.cluster.find_role(stage.role);
        if (!role) continue;
        const auto& argv = stage.units.front().program.argv;
        const int tp = detail::tp_size(argv);
        const int pp = flag_int(argv, {"--pp-size", "--pipeline-parallel-size"}).value_or(1);
        const int dp = flag_set(argv, {"--enable-dp-attention"})
                           ? 1
                           : flag_int(argv, {"--dp-size", "--data-parallel-size"}).value_or(1);
        const int nodes = static_cast<int>(stage.units.size());
        std::string used = "--tp-size " + std::to_string(tp);
        if (pp != 1) used += " x --pp-size " + std::to_string(pp);
        if (dp != 1) used += " x --dp-size " + std::to_string(dp);
        if (role->gpus_per_node <= 0) {
            auto& finding = sink.add(Severity::Info, role->name,
                                     role->name + " runs " + used + " on " + std::to_string(nodes) +
                                         " nodes, but gpus_per_node is not set, so it cannot be checked",
                                     "set gpus_per_node (on the role or in defaults)");
            finding.location = role->where;
            continue;
        }
        const int gpus = nodes * role->gpus_per_node;
        if (tp * pp * dp == gpus) continue;
        auto& finding = sink.add(Severity::Error, role->name,
                                 role->name + " runs " + used + " = " + std::to_string(tp * pp * dp) +
                                     " GPUs, but has " + std::to_string(nodes) + " nodes x " +
                                     std::to_string(role->gpus_per_node) + " GPUs = " + std::to_string(gpus),
                                 gpus % (pp * dp) == 0
                                     ? "set tp_size to " + std::to_string(gpus / (pp * dp)) +
                                           " (or leave it out: pdctl uses nodes x gpus_per_node), or fix "
                                           "gpus_per_node"
                                     : "choose parallel sizes whose product is " + std::to_string(gpus) +
                                           ", or fix gpus_per_node");
        finding.location = role->where;
    }
}

}  // namespace pdctl::lint
