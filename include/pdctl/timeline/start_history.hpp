#pragma once
// What past starts teach about the next one, per stage config (plan::Stage::fingerprint(): the same
// programs, images and arguments): how long its gate took to pass, and each start-up phase. From it,
// learned gate deadlines (clamp(p95 × 1.5, floor, configured)) and pace warnings (a phase or stage
// slower than every recorded one). Pure.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pdctl/plan/plan.hpp"
#include "pdctl/timeline/run_timeline.hpp"

namespace pdctl::timeline {

// The key of a stage's warm starts (every unit hit its kernel cache), kept apart from its cold ones:
// deadlines and pace judge by the cold starts, as the next start may miss.
std::string warm_key(const std::string& fingerprint);

// Fewer successful starts than this teach nothing.
constexpr std::size_t kStartsToLearn = 3;
// The newest starts a stage's numbers come from: old hardware and old images age out.
constexpr std::size_t kStartsKept = 20;
constexpr double kDeadlineMargin = 1.5;

struct StageSamples {
    std::vector<long long> ready_ms;  // launch to gate passed, one per successful start, oldest first
    // The slowest unit's time in each phase, per start (a phase a start did not show is absent there).
    std::map<std::string, std::vector<long long>> phase_ms;
};

struct StartHistory {
    std::map<std::string, StageSamples> stages;  // by fingerprint
    const StageSamples* find(const std::string& fingerprint) const;
};

// From the successful starts and restarts among `runs` (oldest first); a stage counts when its gate
// passed. Each stage keeps its newest kStartsKept.
StartHistory start_history(const std::vector<RunTimeline>& runs);

// Nearest-rank percentile of `samples` (not empty), p in (0, 100].
long long percentile(std::vector<long long> samples, double p);

enum class DeadlinePolicy { kLearned, kFixed };

struct DeadlineChoice {
    plan::Duration deadline{0};
    bool learned = false;
    std::string note;  // for the plan: "learned from 7 starts: p95 14m41s × 1.5 = 22m01s (...)"; "" when
                       // nothing was known
};
DeadlineChoice choose_deadline(const StageSamples* samples, plan::Duration configured, plan::Duration floor,
                               DeadlinePolicy policy);

// Every stage's gate deadline chosen (and each Ready edge's copy of it), with the note on the gate.
void apply_deadlines(plan::Plan& plan, const StartHistory& history, plan::Duration floor,
                     DeadlinePolicy policy);
// Whether apply_deadlines set this gate's deadline from past starts (not kept the configured one).
bool deadline_learned(const plan::Gate& gate);

// The quick probing windows (plan::Gate::quick_from, quick_until) of every stage with kStartsToLearn
// recorded starts: from an interval before its fastest recorded pass to an interval after its slowest.
// A window wider than kQuickWindowIntervals intervals is not set: a stage that varies that much gains
// little from it, and would be probed 5 times as often for long. Each Ready edge gets its stage's.
constexpr long long kQuickWindowIntervals = 20;
void apply_quick_windows(plan::Plan& plan, const StartHistory& history);

// Pace: a unit's phase or a stage running longer than any recorded start of it (by more than a 2 s
// progress poll), said once each, once kStartsToLearn starts recorded it.
class PaceJudge {
  public:
    explicit PaceJudge(StartHistory history) : history_(std::move(history)) {}
    // "prefill loading weights 9m12s on n3 rank 2: slower than any of the last 7 starts (max 6m40s)"
    std::optional<std::string> phase(const plan::Stage& stage, const plan::Unit& unit,
                                     const std::string& phase_id, const std::string& phase_label,
                                     long long elapsed_ms);
    // "prefill not ready after 16m02s: slower than any of the last 7 starts (max 14m41s)"
    std::optional<std::string> stage(const plan::Stage& stage, long long elapsed_ms);

  private:
    StartHistory history_;
    std::vector<std::string> said_;  // "role/phase" and "role/" already warned about
};

}  // namespace pdctl::timeline
