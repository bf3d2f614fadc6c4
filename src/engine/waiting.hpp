#pragma once
// Internal to the engine: the bookkeeping of one launched stage while its readiness gate is polled.
// Several stages can wait at once when narrow edges let a stage start before its dependency is ready.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/engine.hpp"
#include "pdctl/engine/progress_watch.hpp"

namespace pdctl::engine {

// A unit a liveness round could not list: its node answered, or did not, but its listing did not come
// back (Starter::check_liveness).
struct UnseenUnit {
    const plan::Unit* unit;
    std::string why;  // "inspect timed out", ...
};

struct WaitingStage {
    WaitingStage(const plan::Plan& plan, const plan::Stage& waiting_stage, TimePoint launched_at,
                 TimePoint now, int tail_lines)
        : stage(waiting_stage),
          began(launched_at),
          deadline(launched_at + waiting_stage.gate.deadline),
          next_liveness(now),
          next_probe(now),
          next_progress(now),
          progress(plan, waiting_stage, launched_at, tail_lines) {}

    const plan::Stage& stage;
    TimePoint began;  // before its units were launched: the gate deadline counts from here
    TimePoint deadline;
    TimePoint next_liveness;
    TimePoint next_probe;
    TimePoint next_progress;
    std::string last_answer;              // of the gate probe, reported when it changes
    std::string cut_short;                // the last probe, when the deadline cut it short unanswered
    std::optional<TimePoint> dead_since;  // a dead unit's verdict held back (Starter::check_liveness)
    // The units the last liveness round could not list. "Ready" says every rank runs, so a gate that
    // passes while one is unseen waits for a round that sees it (Starter::poll_gate).
    std::vector<UnseenUnit> unseen;
    bool gate_passed = false;  // the last probe passed: the stage waits on an unseen unit
    // The KV path failure the gate's request got on the last probes (without request ids), and how
    // many probes in a row got it (EngineOptions::transfer_error_limit).
    std::string kv_path_failure;
    int kv_path_failures_in_a_row = 0;
    ProgressWatch progress;
};

}  // namespace pdctl::engine
