#include "pdctl/ops/pace_reporter.hpp"

#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::ops {

void PaceReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                 const engine::UnitProgress& progress) {
    inner_.unit_progress(stage, unit, progress);
    const auto judge = [&](runtime::Phase phase, std::chrono::milliseconds took) {
        // Waiting and serving are not work: a rank that joined waits for rank 0, a ready one serves.
        if (phase == runtime::Phase::kJoined || phase == runtime::Phase::kReady ||
            phase == runtime::Phase::kFailed)
            return;
        if (auto slow = judge_.phase(stage, unit, std::string(runtime::phase_id(phase)),
                                     std::string(runtime::phase_label(phase)), took.count()))
            inner_.note(*slow);
    };
    // A slow phase that ended between two polls is as slow as one still running.
    for (const auto& done : engine::finished_phases(progress)) judge(done.phase, done.took);
    judge(progress.phase, progress.phase_elapsed);
    if (auto slow = judge_.stage(stage, progress.stage_elapsed.count())) inner_.note(*slow);
}

}  // namespace pdctl::ops
