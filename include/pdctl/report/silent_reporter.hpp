#pragma once
// A Reporter that shows nothing: for verbs (push) that print their own output but still journal through
// report::JournalingReporter.

#include "pdctl/engine/reporter.hpp"

namespace pdctl::report {

class SilentReporter : public engine::Reporter {
  public:
    void run_begin(const std::string&, const plan::Plan&) override {}
    void stage_begin(const std::string&, const plan::Stage&) override {}
    void stage_skipped(const plan::Stage&, const std::string&) override {}
    void unit_done(const std::string&, const plan::Unit&, const std::string&) override {}
    void gate_waiting(const plan::Stage&, const std::string&, engine::Duration) override {}
    void stage_ready(const plan::Stage&, engine::Duration) override {}
    void stage_failed(const engine::StageFailure&, engine::Duration) override {}
    void note(const std::string&) override {}
    void run_end(const engine::RunSummary&) override {}
};

}  // namespace pdctl::report
