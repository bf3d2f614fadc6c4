#pragma once
// Captures reporter events as short strings for assertions.

#include <mutex>
#include <string>
#include <vector>

#include "pdctl/report/reporter.hpp"

namespace pdctl::testing {

class RecordingReporter : public report::Reporter {
  public:
    std::vector<std::string> events;
    report::StageFailure failure;
    report::RunSummary summary;
    // unit_progress events, kept apart from `events` so tests that compare `events` stay unaffected.
    struct Progress {
        std::string role;
        std::string unit;
        report::UnitProgress progress;
    };
    std::vector<Progress> progress;

    void run_begin(const std::string& verb, const plan::Plan&) override { add("begin " + verb); }
    void stage_begin(const std::string& verb, const plan::Stage& stage) override {
        add(verb + " " + stage.role);
    }
    void stage_skipped(const plan::Stage& stage, const std::string&) override { add("skip " + stage.role); }
    void unit_done(const std::string&, const plan::Unit&, const std::string&) override {}
    void gate_waiting(const plan::Stage&, const std::string&, report::Duration) override {}
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const report::UnitProgress& p) override {
        std::lock_guard lock(mutex_);
        progress.push_back({stage.role, unit.name, p});
    }
    void stage_ready(const plan::Stage& stage, report::Duration) override { add("ready " + stage.role); }
    void stage_failed(const report::StageFailure& f, report::Duration) override {
        failure = f;
        add("failed " + f.role);
    }
    void note(const std::string& message) override { add("note " + message); }
    void run_end(const report::RunSummary& s) override {
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
