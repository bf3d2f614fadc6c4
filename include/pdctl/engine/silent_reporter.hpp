#pragma once
// A Reporter that shows nothing: for verbs (push) that print their own output but still journal through
// ops::JournalingReporter.

#include "pdctl/engine/reporter.hpp"

namespace pdctl::engine {

class SilentReporter : public Reporter {
  public:
    void run_begin(const std::string&, const plan::Plan&) override {}
    void stage_begin(const std::string&, const plan::Stage&) override {}
    void stage_skipped(const plan::Stage&, const std::string&) override {}
    void unit_done(const std::string&, const plan::Unit&, const std::string&) override {}
    void gate_waiting(const plan::Stage&, const std::string&, Duration) override {}
    void stage_ready(const plan::Stage&, Duration) override {}
    void stage_failed(const StageFailure&, Duration) override {}
    void note(const std::string&) override {}
    void run_end(const RunSummary&) override {}
};

}  // namespace pdctl::engine
