#pragma once
// The critical path of a start: the chain of stages, and in each the unit, that its end waited for.
// Pure.

#include <string>

#include "pdctl/timeline/run_timeline.hpp"

namespace pdctl::timeline {

// Marks StageTimeline::critical and one UnitTimeline::critical per marked stage.
//   Stages: from the stage that ended last, back through the one whose end released it (the latest
//   earlier stage that ended before it began; with a narrow edge, the latest earlier one to begin).
//   Units: a failed stage's blamed unit; else the straggler, the rank that entered some phase later
//   than the first of its peers by more than one progress poll (2 s) and by more than any other rank
//   did (its group waited for it at the next collective); else rank 0, whose HTTP port is the gate.
void mark_critical_path(RunTimeline& run);

// "master 2.1s → prefill n3 rank 2 6m12s → decode n5 rank 0 5m58s → router 3.0s"
std::string describe_critical_path(const RunTimeline& run);

}  // namespace pdctl::timeline
