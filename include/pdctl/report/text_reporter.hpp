#pragma once
// Human-readable progress: one line per change. On a terminal lines carry the local time; without
// one (CI, pipes) they carry a UTC timestamp so logs from several jobs line up.

#include <cstdio>
#include <mutex>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::report {

class TextReporter : public engine::Reporter {
  public:
    TextReporter(std::FILE* out, const util::Redactor& redactor, bool utc_timestamps)
        : out_(out), redactor_(redactor), utc_timestamps_(utc_timestamps) {}
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
    void line(const std::string& text);
    std::FILE* out_;
    const util::Redactor& redactor_;
    bool utc_timestamps_;
    std::mutex mutex_;
    std::size_t stage_count_ = 0;
};

class JsonLinesReporter : public engine::Reporter {
  public:
    JsonLinesReporter(std::FILE* out, const util::Redactor& redactor) : out_(out), redactor_(redactor) {}
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
    void emit(const std::string& json_text);
    std::FILE* out_;
    const util::Redactor& redactor_;
    std::mutex mutex_;
};

}  // namespace pdctl::report
