#include "pdctl/ops/intent_store.hpp"

#include <fmt/format.h>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/state/coordinator.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
namespace {

std::string cluster_dir(const Deployment& deployment) {
    return config::cluster_state_dir(deployment.cluster.state_dir, deployment.cluster.name);
}

}  // namespace

IntentRead read_intent(const Deployment& deployment) {
    const auto& coordinator = state::coordinator_node(deployment.cluster);
    const auto answer =
        deployment.executor->run(coordinator, state::intent::read_command(cluster_dir(deployment)));
    if (!answer.ok())
        return {{},
                fmt::format("the operators' intent on {} could not be read: {}", coordinator.name,
                            exec::failure_reason(answer))};
    return {state::intent::parse(answer.out), ""};
}

std::string change_intent(
    const Deployment& deployment, JournalingReporter& journal, const std::string& kind,
    const std::vector<std::string>& stages,
    const std::function<bool(state::intent::Intent&, const state::intent::Act&)>& change) {
    auto read = read_intent(deployment);
    if (!read.error.empty()) return read.error;
    const auto now = util::epoch_ms_now();
    const state::intent::Act act{journal.run().who, util::utc_text(now), now, journal.run().run_id};
    if (!change(read.intent, act)) return "";
    const auto& coordinator = state::coordinator_node(deployment.cluster);
    const auto answer = deployment.executor->run(
        coordinator,
        state::intent::write_command(cluster_dir(deployment), state::intent::to_text(read.intent)));
    if (!answer.ok())
        return fmt::format("the operators' intent on {} could not be written: {}", coordinator.name,
                           exec::failure_reason(answer));
    journal.journal_event("intent", {{"change", kind}, {"stages", stages}});
    return "";
}

}  // namespace pdctl::ops
