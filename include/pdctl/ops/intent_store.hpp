#pragma once
// The operators' intent (state/intent.hpp) on the coordinator: read by status and heal, changed by
// stop, start, restart and `heal pause`/`heal resume` under the deploy lock, each change also a line of
// the run's journal record.

#include <functional>
#include <string>
#include <vector>

#include "pdctl/ops/deployment.hpp"
#include "pdctl/ops/journaling_reporter.hpp"
#include "pdctl/state/intent.hpp"

namespace pdctl::ops {

struct IntentRead {
    state::intent::Intent intent;
    std::string error;  // why it could not be read ("" when it was): the intent is then unknown
};
IntentRead read_intent(const Deployment& deployment);

// Applies `change` to the coordinator's document and writes it back when it changed anything; the
// journal gets an `intent` line with `kind` and `stages`. Returns why it could not, or "".
std::string change_intent(
    const Deployment& deployment, JournalingReporter& journal, const std::string& kind,
    const std::vector<std::string>& stages,
    const std::function<bool(state::intent::Intent&, const state::intent::Act&)>& change);

}  // namespace pdctl::ops
