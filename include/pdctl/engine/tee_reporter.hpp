#pragma once
// Every event to two reporters, in order: what the operator watches (text, JSON Lines or the live
// view) and a plain-text copy for `--log-file`; or a recorder (`start --junit`) and the run's own
// reporter.

#include <memory>

#include "pdctl/engine/reporter.hpp"

namespace pdctl::engine {

class TeeReporter : public Reporter {
  public:
    // Owns both.
    TeeReporter(std::unique_ptr<Reporter> primary, std::unique_ptr<Reporter> copy)
        : owned_primary_(std::move(primary)),
          owned_copy_(std::move(copy)),
          primary_(*owned_primary_),
          copy_(*owned_copy_) {}
    // Borrows both: they must outlive the tee.
    TeeReporter(Reporter& primary, Reporter& copy) : primary_(primary), copy_(copy) {}
    void run_begin(const std::string& verb, const plan::Plan& plan) override;
    void stage_begin(const std::string& verb, const plan::Stage& stage) override;
    void stage_skipped(const plan::Stage& stage, const std::string& why) override;
    void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) override;
    void gate_waiting(const plan::Stage& stage, const std::string& last_answer, Duration elapsed) override;
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const UnitProgress& progress) override;
    void stage_ready(const plan::Stage& stage, Duration elapsed) override;
    void stage_failed(const StageFailure& failure, Duration elapsed) override;
    void note(const std::string& message) override;
    void run_end(const RunSummary& summary) override;

  private:
    std::unique_ptr<Reporter> owned_primary_;
    std::unique_ptr<Reporter> owned_copy_;
    Reporter& primary_;
    Reporter& copy_;
};

}  // namespace pdctl::engine
