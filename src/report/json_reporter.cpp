#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "pdctl/report/output.hpp"
#include "pdctl/report/text_reporter.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::report {
using engine::Duration;
using engine::RunSummary;
using engine::StageFailure;
using engine::UnitProgress;
using runtime::phase_id;

namespace {

using nlohmann::json;

json event(const char* name) {
    const auto now = util::epoch_ms_now();
    return json{{"ts", util::utc_text_ms(now)}, {"epoch_ms", now}, {"event", name}};
}

json related_logs_json(const engine::StageFailure& failure) {
    json logs = json::array();
    for (const auto& related : failure.related_logs)
        logs.push_back({{"unit", related.unit}, {"lines", related.lines}});
    return logs;
}

}  // namespace

void JsonLinesReporter::emit(const std::string& json_text) {
    std::lock_guard lock(mutex_);
    write_text(out_, redactor_.redact(json_text) + "\n");
}

void JsonLinesReporter::run_begin(const std::string& verb, const plan::Plan& plan) {
    auto e = event("run_begin");
    e["verb"] = verb;
    e["cluster"] = plan.cluster;
    e["config"] = plan.fingerprint;
    e["stages"] = plan.stages.size();
    emit(e.dump());
}

void JsonLinesReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    auto e = event("stage_begin");
    e["verb"] = verb;
    e["role"] = stage.role;
    json nodes = json::array();
    for (const auto& unit : stage.units) nodes.push_back(unit.node);
    e["nodes"] = nodes;
    emit(e.dump());
}

void JsonLinesReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    auto e = event("stage_skipped");
    e["role"] = stage.role;
    e["why"] = why;
    emit(e.dump());
}

void JsonLinesReporter::unit_done(const std::string& verb, const plan::Unit& unit,
                                  const std::string& detail) {
    auto e = event("unit_done");
    e["verb"] = verb;
    e["role"] = unit.role;
    e["node"] = unit.node;
    e["rank"] = unit.rank;
    e["detail"] = detail;
    emit(e.dump());
}

void JsonLinesReporter::gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                                     Duration elapsed) {
    auto e = event("gate_waiting");
    e["role"] = stage.role;
    e["url"] = stage.gate.url;
    e["answer"] = last_answer;
    e["elapsed_ms"] = elapsed.count();
    emit(e.dump());
}

// Changes only (a phase moved, a warning appeared): the periodic refreshes are for the live view.
void JsonLinesReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                      const UnitProgress& progress) {
    if (!progress.changed()) return;
    auto e = event("unit_progress");
    e["role"] = stage.role;
    e["node"] = unit.node;
    e["rank"] = unit.rank;
    e["unit"] = unit.name;
    e["phase"] = std::string(phase_id(progress.phase));
    e["phase_changed"] = progress.phase_changed;
    e["phase_elapsed_ms"] = progress.phase_elapsed.count();
    e["elapsed_ms"] = progress.stage_elapsed.count();
    e["stalled_for_ms"] = progress.stalled_for.count();
    e["verdict"] = std::string(verdict_id(progress.verdict));
    e["verdict_changed"] = progress.verdict_changed;
    if (!progress.stall.empty()) e["stall"] = progress.stall;
    if (progress.previous) {
        e["previous_phase"] = std::string(phase_id(*progress.previous));
        e["previous_phase_ms"] = progress.previous_took.count();
    }
    e["warnings"] = progress.new_warnings;
    e["phase_line"] = progress.phase_line;
    e["last_line"] = progress.last_line;
    emit(e.dump());
}

void JsonLinesReporter::stage_ready(const plan::Stage& stage, Duration elapsed) {
    auto e = event("stage_ready");
    e["role"] = stage.role;
    e["elapsed_ms"] = elapsed.count();
    emit(e.dump());
}

void JsonLinesReporter::stage_failed(const StageFailure& failure, Duration elapsed) {
    auto e = event("stage_failed");
    e["role"] = failure.role;
    e["node"] = failure.node;
    e["address"] = failure.address;
    e["rank"] = failure.rank;
    e["reason"] = failure.reason;
    e["log_tail"] = failure.log_tail;
    e["related_logs"] = related_logs_json(failure);
    e["hint"] = failure.hint;
    e["elapsed_ms"] = elapsed.count();
    emit(e.dump());
}

void JsonLinesReporter::note(const std::string& message) {
    auto e = event("note");
    e["message"] = message;
    emit(e.dump());
}

void JsonLinesReporter::run_end(const RunSummary& summary) {
    auto e = event("run_end");
    e["verb"] = summary.verb;
    e["exit_code"] = to_int(summary.code);
    e["result"] = describe(summary.code);
    e["message"] = summary.message;
    e["elapsed_ms"] = summary.elapsed.count();
    e["cleaned_up"] = summary.cleaned_up;
    emit(e.dump());
}

}  // namespace pdctl::report
