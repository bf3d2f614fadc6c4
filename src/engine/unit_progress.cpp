#include "pdctl/engine/unit_progress.hpp"

#include <algorithm>

namespace pdctl::engine {

std::vector<FinishedPhase> finished_phases(const UnitProgress& progress) {
    std::vector<FinishedPhase> finished;
    if (!progress.phase_changed || progress.entered.empty()) return finished;
    const auto& entered = progress.entered;
    if (progress.previous) {
        // `previous_took` runs from the previous phase's start to the current one's; the phases entered
        // in between are not part of it.
        const auto between = entered.front().ago - entered.back().ago;
        finished.push_back(
            {*progress.previous, std::max(progress.previous_took - between, std::chrono::milliseconds{0})});
    }
    for (std::size_t i = 0; i + 1 < entered.size(); ++i)
        finished.push_back(
            {entered[i].phase, std::max(entered[i].ago - entered[i + 1].ago, std::chrono::milliseconds{0})});
    return finished;
}

}  // namespace pdctl::engine
