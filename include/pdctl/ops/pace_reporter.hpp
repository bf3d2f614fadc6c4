#pragma once
// A Reporter decorator for start: every event goes on unchanged, and when a unit's phase or a stage
// runs longer than any recorded start of the same stage config (timeline::PaceJudge), one note says
// so, once, while there is still time to look.

#include <functional>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/timeline/start_history.hpp"

namespace pdctl::ops {

class PaceReporter : public engine::Reporter {
  public:
    PaceReporter(engine::Reporter& inner, timeline::StartHistory history)
        : inner_(inner), judge_(std::move(history)) {}

    void run_begin(const std::string& verb, const plan::Plan& plan) override { inner_.run_begin(verb, plan); }
    void stage_begin(const std::string& verb, const plan::Stage& stage) override {
        inner_.stage_begin(verb, stage);
    }
    void stage_skipped(const plan::Stage& stage, const std::string& why) override {
        inner_.stage_skipped(stage, why);
    }
    void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) override {
        inner_.unit_done(verb, unit, detail);
    }
    void gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                      engine::Duration elapsed) override {
        inner_.gate_waiting(stage, last_answer, elapsed);
    }
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const engine::UnitProgress& progress) override;
    void stage_ready(const plan::Stage& stage, engine::Duration elapsed) override {
        inner_.stage_ready(stage, elapsed);
    }
    void stage_failed(const engine::StageFailure& failure, engine::Duration elapsed) override {
        inner_.stage_failed(failure, elapsed);
    }
    void note(const std::string& message) override { inner_.note(message); }
    void run_end(const engine::RunSummary& summary) override {
        if (closing_notes_)
            for (const auto& line : closing_notes_()) inner_.note(line);
        inner_.run_end(summary);
    }

    // Notes said right before the run's end line, from the engine's own thread (`start --prewarm`'s
    // results, which other threads gathered).
    void set_closing_notes(std::function<std::vector<std::string>()> notes) {
        closing_notes_ = std::move(notes);
    }

  private:
    engine::Reporter& inner_;
    std::function<std::vector<std::string>()> closing_notes_;
    timeline::PaceJudge judge_;
};

}  // namespace pdctl::ops
