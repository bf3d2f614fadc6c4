#pragma once
// Every event to two reporters, in order: what the operator watches (text, JSON Lines or the live
// view) and a plain-text copy for `--log-file`.

#include <memory>

#include "pdctl/engine/reporter.hpp"

namespace pdctl::report {

class TeeReporter : public engine::Reporter {
  public:
    TeeReporter(std::unique_ptr<engine::Reporter> primary, std::unique_ptr<engine::Reporter> copy)
        : primary_(std::move(primary)), copy_(std::move(copy)) {}
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
    std::unique_ptr<engine::Reporter> primary_;
    std::unique_ptr<engine::Reporter> copy_;
};

}  // namespace pdctl::report
