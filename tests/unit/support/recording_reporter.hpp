#pragma once
// Captures reporter events as short strings for assertions.

#include <mutex>
#include <string>
#include <vector>

#include "pdctl/engine/reporter.hpp"

namespace pdctl::testing {

class RecordingReporter : public engine::Reporter {
  public:
    std::vector<std::string> events;
    engine::StageFailure failure;
    engine::RunSummary summary;
    // unit_progress events, kept apart from `events` so tests that compare `events` stay unaffected.
    struct Progress {
        std::string role;
        std::string unit;
        engine::UnitProgress progress;
    };
    std::vector<Progress> progress;
    // What each gate_waiting said ("prefill: HTTP 503"), also apart from `events`.
    std::vector<std::string> gate_answers;

    void run_begin(const std::string& verb, const plan::Plan&) override { add("begin " + verb); }
    void stage_begin(const std::string& verb, const plan::Stage& stage) override {
        add(verb + " " + stage.role);
    }
    void stage_skipped(const plan::Stage& stage, const std::string&) override { add("skip " + stage.role); }
    void unit_done(const std::string&, const plan::Unit&, const std::string&) override {}
    void gate_waiting(const plan::Stage& stage, const std::string& answer, engine::Duration) override {
        std::lock_guard lock(mutex_);
        gate_answers.push_back(stage.role + ": " + answer);
    }
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const engine::UnitProgress& p) override {
        std::lock_guard lock(mutex_);
        progress.push_back({stage.role, unit.name, p});
    }
    void stage_ready(const plan::Stage& stage, engine::Duration) override { add("ready " + stage.role); }
    void stage_failed(const engine::StageFailure& f, engine::Duration) override {
        failure = f;
        add("failed " + f.role);
    }
    void note(const std::string& message) override { add("note " + message); }
    void run_end(const engine::RunSummary& s) override {
        summary = s;
        add("end " + s.verb);
    }

  private:
    void add(std::string event) {
        std::lock_guard lock(mutex_);
        events.push_back(std::move(event));
    }
    std::mutex mutex_;
};

}  // namespace pdctl::testing
