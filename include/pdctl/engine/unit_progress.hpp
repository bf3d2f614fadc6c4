#pragma once
// The payload of Reporter::unit_progress: where one unit of a starting stage is, read from its log.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/stall.hpp"
#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::engine {

struct UnitProgress {
    runtime::Phase phase = runtime::Phase::kStarting;
    std::chrono::milliseconds phase_elapsed{0};  // time in `phase`, dated by the log line that entered it
    std::chrono::milliseconds stage_elapsed{0};  // since the stage's units were launched
    std::chrono::milliseconds stalled_for{0};    // since the unit's log last changed
    // False for the periodic refresh a live view redraws from; true when the phase moved or a warning
    // appeared (what line-based reporters print).
    bool phase_changed = false;
    std::optional<runtime::Phase> previous;  // the phase before, when phase_changed
    std::chrono::milliseconds previous_took{0};
    std::vector<std::string> new_warnings;  // seen for the first time in this poll
    // When phase_changed: each phase entered since the previous poll, oldest first, `phase` last,
    // with how long before this poll it began (dated like `phase_elapsed`). A poll every 2 s can see
    // several short phases at once; the journal's timeline keeps every one.
    struct PhaseStart {
        runtime::Phase phase = runtime::Phase::kStarting;
        std::chrono::milliseconds ago{0};
    };
    std::vector<PhaseStart> entered;
    std::string phase_line;  // the log line that entered `phase`
    std::string last_line;   // newest log line
    // Judged with the other ranks of its group (engine/stall.hpp); sglang stages only.
    RankVerdict verdict = RankVerdict::kMoving;
    bool verdict_changed = false;
    std::string stall;  // for kStalled: "stalled while allocating KV cache: its log has been quiet ..."

    bool changed() const { return phase_changed || verdict_changed || !new_warnings.empty(); }
};

// The phases a poll saw end, with how long each took: the one tracked before the poll (`previous`) and
// every one entered and left between two polls. A phase shorter than the poll interval is only ever
// seen finished, so a judge of slow phases must look at these as well as at the current one.
struct FinishedPhase {
    runtime::Phase phase = runtime::Phase::kStarting;
    std::chrono::milliseconds took{0};
};
std::vector<FinishedPhase> finished_phases(const UnitProgress& progress);

}  // namespace pdctl::engine
