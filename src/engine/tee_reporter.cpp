#include "pdctl/engine/tee_reporter.hpp"

namespace pdctl::engine {

void TeeReporter::run_begin(const std::string& verb, const plan::Plan& plan) {
    primary_.run_begin(verb, plan);
    copy_.run_begin(verb, plan);
}

void TeeReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    primary_.stage_begin(verb, stage);
    copy_.stage_begin(verb, stage);
}

void TeeReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    primary_.stage_skipped(stage, why);
    copy_.stage_skipped(stage, why);
}

void TeeReporter::unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) {
    primary_.unit_done(verb, unit, detail);
    copy_.unit_done(verb, unit, detail);
}

void TeeReporter::gate_waiting(const plan::Stage& stage, const std::string& last_answer, Duration elapsed) {
    primary_.gate_waiting(stage, last_answer, elapsed);
    copy_.gate_waiting(stage, last_answer, elapsed);
}

void TeeReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                const UnitProgress& progress) {
    primary_.unit_progress(stage, unit, progress);
    copy_.unit_progress(stage, unit, progress);
}

void TeeReporter::stage_ready(const plan::Stage& stage, Duration elapsed) {
    primary_.stage_ready(stage, elapsed);
    copy_.stage_ready(stage, elapsed);
}

void TeeReporter::stage_failed(const StageFailure& failure, Duration elapsed) {
    primary_.stage_failed(failure, elapsed);
    copy_.stage_failed(failure, elapsed);
}

void TeeReporter::note(const std::string& message) {
    primary_.note(message);
    copy_.note(message);
}

void TeeReporter::run_end(const RunSummary& summary) {
    primary_.run_end(summary);
    copy_.run_end(summary);
}

}  // namespace pdctl::engine
