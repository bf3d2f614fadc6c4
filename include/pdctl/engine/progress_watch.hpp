#pragma once
// Start-up progress of a stage's units while the engine waits on its gate. Each poll reads the last
// lines of every unit's log (the runtime's logs command: one command per unit, nodes in parallel),
// turns them into a phase (report/phases) and hands the reporter one UnitProgress per unit.
// Advisory only: liveness and the gate still decide whether the stage failed or is ready.

#include <optional>
#include <string>
#include <vector>

#include "pdctl/engine/clock.hpp"
#include "pdctl/engine/reporter.hpp"
#include "pdctl/engine/unit_progress.hpp"
#include "pdctl/exec/executor.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/runtime/startup_phase.hpp"

namespace pdctl::engine {

class ProgressWatch {
  public:
    // `began`: when the stage's units were launched. `tail_lines`: how much of each log to read.
    ProgressWatch(const plan::Plan& plan, const plan::Stage& stage, TimePoint began, int tail_lines);

    // One round: read every unit's tail and report each unit (a unit whose log could not be read this
    // round is left out; it is not a change).
    void poll(exec::Executor& executor, TimePoint now, Reporter& reporter);

    // The units judged stalled by the last poll, in rank order, with why (engine/stall.hpp).
    struct Stalled {
        const plan::Unit* unit;
        std::string why;
    };
    std::vector<Stalled> stalled() const;

    // The bookkeeping step behind poll(): unit `index` (in stage order) showed `lines` at `now`.
    UnitProgress observe(std::size_t index, const std::vector<std::string>& lines, TimePoint now);

  private:
    struct Tracked {
        bool seen = false;
        runtime::Phase phase = runtime::Phase::kStarting;
        bool phase_done = false;  // the log showed the end of `phase`
        TimePoint phase_started;
        std::string phase_line;
        std::string tail;       // last tail read, to tell whether the log moved
        TimePoint last_change;  // when it last moved
        TimePoint last_read;    // the previous poll that read it
        // How far the log's wall clock is ahead of this process's clock, at least: every line was
        // written before the poll that read it. Tightens as lines arrive; maps log times to ours
        // without trusting the node's clock to agree with this machine's.
        std::optional<TimePoint::duration> log_ahead;
        runtime::Classification classification;  // of `tail`
        std::vector<std::string> warnings;       // already reported
        RankVerdict verdict = RankVerdict::kMoving;
        bool verdict_changed = false;  // since it was last reported
        std::string stall;             // why, while kStalled
    };
    // Judges the ranks seen so far together and records each one's verdict.
    void judge(TimePoint now);
    std::optional<std::vector<std::string>> read_tail(exec::Executor& executor, std::size_t index) const;

    const plan::Plan& plan_;
    const plan::Stage& stage_;
    TimePoint began_;
    std::vector<exec::Command> commands_;  // logs command per unit
    std::vector<Tracked> tracked_;         // per unit
};

// A command's output as log lines: split on '\n' and '\r' (progress bars redraw with '\r'), the last
// `keep` non-empty ones.
std::vector<std::string> split_log_lines(const std::string& text, std::size_t keep);

}  // namespace pdctl::engine
