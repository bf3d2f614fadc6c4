#pragma once
// The terminal reporter: a compact block per role, redrawn in place with plain ANSI cursor movement
// (no curses), ticking once a second so elapsed times move between events. Lines that belong in the
// scrollback (the run header, notes, the failure in full, the summary) are printed above the block
// by a TextReporter. When a run ends the block is printed one last time as ordinary output, so the
// scrollback holds exactly one final copy.

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "pdctl/report/live_view_model.hpp"
#include "pdctl/report/text_reporter.hpp"

namespace pdctl::report {

class LiveViewReporter : public engine::Reporter {
  public:
    LiveViewReporter(std::FILE* out, const util::Redactor& redactor, LiveStyle style);
    ~LiveViewReporter() override;
    LiveViewReporter(const LiveViewReporter&) = delete;
    LiveViewReporter& operator=(const LiveViewReporter&) = delete;

    void run_begin(const std::string& verb, const plan::Plan& plan) override;
    void stage_begin(const std::string& verb, const plan::Stage& stage) override;
    void stage_skipped(const plan::Stage& stage, const std::string& why) override;
    void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) override;
    void gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                      engine::Duration elapsed) override;
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const engine::UnitProgress& progress) override;
    void stage_ready(const plan::Stage& stage, engine::Duration elapsed) override;
    void stage_failed(const engine::StageFailure& failure, engine::Duration elapsed) override;
    void note(const std::string& message) override;
    void run_end(const engine::RunSummary& summary) override;

  private:
    // Overwrites the block on screen with the current one (`final`: leave it as ordinary output).
    void draw_locked(bool final);
    // Removes the block, so static lines can be printed where it was.
    void erase_locked();
    void stop_ticker();
    std::size_t terminal_width() const;

    std::FILE* out_;
    const util::Redactor& redactor_;
    LiveStyle style_;
    TextReporter text_;
    LiveViewModel model_;
    std::optional<std::pair<engine::StageFailure, engine::Duration>>
        failure_;  // printed in full below the final block

    std::mutex mutex_;
    std::size_t drawn_ = 0;  // lines of the block on screen; the cursor sits just below them
    std::condition_variable wake_;
    bool ticking_ = false;
    std::thread ticker_;
};

}  // namespace pdctl::report
