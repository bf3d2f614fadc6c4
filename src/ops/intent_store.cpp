#include "pdctl/ops/intent_store.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "pdctl/config/state_paths.hpp"
#include "pdctl/exec/command.hpp"
#include "pdctl/state/coordinator.hpp"

namespace pdctl::ops {
namespace {

std::string cluster_dir(const Deployment& deployment) {
    return config::cluster_state_dir(deployment.cluster.state_dir, deployment.cluster.name);
}

}  // namespace

long long epoch_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string utc_text(long long epoch_ms) {
    const auto seconds = static_cast<std::time_t>(epoch_ms / 1000);
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(seconds));
}

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
    const auto now = epoch_ms_now();
    const state::intent::Act act{journal.run().who, utc_text(now), now, journal.run().run_id};
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
