#include "pdctl/report/pace_reporter.hpp"

#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::report {

void PaceReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                 const engine::UnitProgress& progress) {
    inner_.unit_progress(stage, unit, progress);
    // Waiting and serving are not work: a rank that joined waits for rank 0, a ready one serves.
    const auto phase = progress.phase;
    if (phase != runtime::Phase::kJoined && phase != runtime::Phase::kReady &&
        phase != runtime::Phase::kFailed) {
        if (auto slow =
                judge_.phase(stage, unit, std::string(runtime::phase_id(phase)),
                             std::string(runtime::phase_label(phase)), progress.phase_elapsed.count()))
            inner_.note(*slow);
    }
    if (auto slow = judge_.stage(stage, progress.stage_elapsed.count())) inner_.note(*slow);
}

}  // namespace pdctl::report
