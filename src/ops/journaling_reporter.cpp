#include "pdctl/ops/journaling_reporter.hpp"

#include <fmt/format.h>

#include "pdctl/runtime/startup_phase.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/wall_clock.hpp"

namespace pdctl::ops {
using engine::Duration;
using engine::Reporter;
using engine::RunSummary;
using engine::StageFailure;
using engine::UnitProgress;

namespace {

using nlohmann::json;

json node_names(const plan::Stage& stage) {
    json nodes = json::array();
    for (const auto& unit : stage.units) nodes.push_back(unit.node);
    return nodes;
}

}  // namespace

void redact_json(json& value, const util::Redactor& redactor) {
    if (value.is_string()) {
        value = redactor.redact(value.get<std::string>());
    } else if (value.is_array()) {
        for (auto& element : value) redact_json(element, redactor);
    } else if (value.is_object()) {
        json copy = json::object();
        for (auto& [key, element] : value.items()) {
            redact_json(element, redactor);
            copy[redactor.redact(key)] = std::move(element);
        }
        value = std::move(copy);
    }
}

JournalingReporter::JournalingReporter(Reporter& inner, const util::Redactor& redactor, JournalRun run)
    : inner_(inner), redactor_(redactor), run_(std::move(run)) {
    json begin = {
        {"who", run_.who}, {"cluster", run_.cluster}, {"config", run_.config}, {"version", run_.version}};
    if (!run_.config_id.empty()) begin["config_id"] = run_.config_id;
    record("record_begin", std::move(begin));
}

void JournalingReporter::record(const char* event, json fields) {
    const auto epoch_ms = util::epoch_ms_now();
    redact_json(fields, redactor_);
    std::lock_guard lock(mutex_);
    if (finished_) return;
    // The envelope first, in a fixed order, so the lines read well with `tail` and `jq -c` alike.
    nlohmann::ordered_json line = {{"run", run_.run_id},
                                   {"seq", seq_++},
                                   {"ts", util::utc_text(epoch_ms)},
                                   {"epoch_ms", epoch_ms},
                                   {"verb", redactor_.redact(run_.verb)},
                                   {"event", event}};
    for (const auto& [key, value] : fields.items()) line[key] = value;  // json -> ordered_json: a copy
    lines_ += line.dump() + "\n";
}

void JournalingReporter::open_stage(const std::string& action, const std::string& role) {
    close_stage("done");
    std::lock_guard lock(mutex_);
    open_stage_ = OpenStage{action, role, util::SteadyClock::now()};
}

void JournalingReporter::close_stage(const char* result) {
    std::optional<OpenStage> stage;
    {
        std::lock_guard lock(mutex_);
        stage.swap(open_stage_);
    }
    if (!stage) return;
    const auto elapsed = util::milliseconds_since(stage->began).count();
    record("stage_end",
           {{"action", stage->action}, {"role", stage->role}, {"result", result}, {"elapsed_ms", elapsed}});
}

void JournalingReporter::run_begin(const std::string& verb, const plan::Plan& plan) {
    inner_.run_begin(verb, plan);
    record("run_begin", {{"action", verb}, {"stages", plan.stages.size()}});
}

void JournalingReporter::stage_begin(const std::string& verb, const plan::Stage& stage) {
    inner_.stage_begin(verb, stage);
    open_stage(verb, stage.role);
    json fields = {{"action", verb}, {"role", stage.role}, {"nodes", node_names(stage)}};
    if (verb == "start") {
        // What a timeline and the learned deadlines of later starts need (timeline/).
        fields["fingerprint"] = stage.fingerprint();
        fields["deadline_ms"] = stage.gate.deadline.count();
        fields["kind"] = config::to_string(stage.kind);
    }
    record("stage_begin", std::move(fields));
}

void JournalingReporter::stage_skipped(const plan::Stage& stage, const std::string& why) {
    inner_.stage_skipped(stage, why);
    record("stage_skipped", {{"role", stage.role}, {"why", why}});
}

void JournalingReporter::unit_done(const std::string& verb, const plan::Unit& unit,
                                   const std::string& detail) {
    inner_.unit_done(verb, unit, detail);
    record("unit_done", {{"action", verb},
                         {"role", unit.role},
                         {"node", unit.node},
                         {"rank", unit.rank},
                         {"detail", detail}});
}

void JournalingReporter::gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                                      Duration elapsed) {
    inner_.gate_waiting(stage, last_answer, elapsed);
    record("gate_waiting", {{"role", stage.role}, {"answer", last_answer}, {"elapsed_ms", elapsed.count()}});
}

void JournalingReporter::unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                                       const UnitProgress& progress) {
    inner_.unit_progress(stage, unit, progress);
    if (!progress.phase_changed) return;
    // Each phase once, dated by the log line that entered it: the timeline's raw data.
    const auto now = util::epoch_ms_now();
    for (const auto& entered : progress.entered)
        record("unit_phase", {{"role", stage.role},
                              {"node", unit.node},
                              {"rank", unit.rank},
                              {"phase", runtime::phase_id(entered.phase)},
                              {"began_epoch_ms", now - entered.ago.count()}});
}

void JournalingReporter::stage_ready(const plan::Stage& stage, Duration elapsed) {
    inner_.stage_ready(stage, elapsed);
    record("stage_ready", {{"role", stage.role}, {"node", stage.gate.node}, {"elapsed_ms", elapsed.count()}});
    close_stage("ready");
}

void JournalingReporter::stage_failed(const StageFailure& failure, Duration elapsed) {
    inner_.stage_failed(failure, elapsed);
    json fields = {{"role", failure.role},         {"node", failure.node},
                   {"address", failure.address},   {"rank", failure.rank},
                   {"reason", failure.reason},     {"hint", failure.hint},
                   {"log_tail", failure.log_tail}, {"elapsed_ms", elapsed.count()}};
    {
        std::lock_guard lock(mutex_);
        last_failure_ = {{"role", failure.role},
                         {"node", failure.node},
                         {"rank", failure.rank},
                         {"reason", failure.reason}};
    }
    record("stage_failed", std::move(fields));
    close_stage("failed");
}

void JournalingReporter::note(const std::string& message) {
    inner_.note(message);
    record("note", {{"message", message}});
}

void JournalingReporter::journal_note(const std::string& message) {
    record("note", {{"message", message}});
}

void JournalingReporter::run_end(const RunSummary& summary) {
    inner_.run_end(summary);
    close_stage("done");
    {
        std::lock_guard lock(mutex_);
        last_message_ = summary.message;
    }
    record("run_end", {{"action", summary.verb},
                       {"exit_code", to_int(summary.code)},
                       {"result", describe(summary.code)},
                       {"message", summary.message},
                       {"elapsed_ms", summary.elapsed.count()},
                       {"cleaned_up", summary.cleaned_up}});
}

std::string JournalingReporter::finish(ExitCode code, const std::string& message) {
    const auto elapsed = util::milliseconds_since(began_).count();
    json fields = {{"exit_code", to_int(code)}, {"result", describe(code)}, {"elapsed_ms", elapsed}};
    {
        std::lock_guard lock(mutex_);
        fields["message"] = message.empty() ? last_message_ : message;
        // A failure that did not end the run (restart's stop went fine, its start failed) is still the
        // reason a failed run failed; a successful run names none.
        if (code != ExitCode::kOk && !last_failure_.is_null()) fields["failed"] = last_failure_;
    }
    record("record_end", std::move(fields));
    std::lock_guard lock(mutex_);
    finished_ = true;
    return lines_;
}

}  // namespace pdctl::ops
