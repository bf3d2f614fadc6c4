#pragma once
// A Reporter decorator (tee) for the verbs that change the cluster: every event goes on to the
// operator's reporter unchanged and is also recorded as one journal line. finish() adds the run's
// outcome and returns the whole record, which the CLI appends to the coordinator's journal
// (state/journal.hpp) and to a local copy. Every string is redacted before it is recorded.

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pdctl/engine/reporter.hpp"
#include "pdctl/util/durations.hpp"
#include "pdctl/util/redactor.hpp"

namespace pdctl::ops {

// Who runs what; written on the record's first line.
struct JournalRun {
    std::string run_id;
    std::string verb;  // the verb the operator typed: restart's stop and start are one run
    std::string who;   // user@host
    std::string cluster;
    std::string config;  // the plan's fingerprint
    std::string version;
    // The config kept for this run (state/config_store.hpp), "" when the verb keeps none.
    std::string config_id;
};

class JournalingReporter : public engine::Reporter {
  public:
    JournalingReporter(engine::Reporter& inner, const util::Redactor& redactor, JournalRun run);

    void run_begin(const std::string& verb, const plan::Plan& plan) override;
    void stage_begin(const std::string& verb, const plan::Stage& stage) override;
    void stage_skipped(const plan::Stage& stage, const std::string& why) override;
    void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) override;
    void gate_waiting(const plan::Stage& stage, const std::string& last_answer,
                      engine::Duration elapsed) override;
    // Forwarded; recorded only when the phase moved (one `unit_phase` line per phase entered): the live
    // view polls every unit every few seconds.
    void unit_progress(const plan::Stage& stage, const plan::Unit& unit,
                       const engine::UnitProgress& progress) override;
    void stage_ready(const plan::Stage& stage, engine::Duration elapsed) override;
    void stage_failed(const engine::StageFailure& failure, engine::Duration elapsed) override;
    void note(const std::string& message) override;
    void run_end(const engine::RunSummary& summary) override;

    // Recorded only, not forwarded: an error the CLI prints itself (an exception that ended the run).
    void journal_note(const std::string& message);
    // Recorded only: a line of the verb's own (`bench` keeps its results this way).
    void journal_event(const char* event, nlohmann::json fields) { record(event, std::move(fields)); }

    // Ends the record with the run's exit code and returns it: JSON Lines, one per event, each with the
    // run id and a sequence number. Events after finish() are still forwarded but no longer recorded.
    // The outcome's message is `message`, else the last run_end's.
    std::string finish(ExitCode code, const std::string& message = {});
    const JournalRun& run() const { return run_; }

  private:
    void record(const char* event, nlohmann::json fields);
    // Every stage gets a `stage_end` line with its duration: after stage_ready or stage_failed, and for
    // stop/replace/cleanup stages (which have no end event) when the next stage or the run begins/ends.
    void open_stage(const std::string& action, const std::string& role);
    void close_stage(const char* result);

    engine::Reporter& inner_;
    const util::Redactor& redactor_;
    JournalRun run_;
    util::SteadyClock::time_point began_ = util::SteadyClock::now();
    std::mutex mutex_;
    std::string lines_;
    int seq_ = 0;
    bool finished_ = false;
    std::string last_message_;
    nlohmann::json last_failure_;  // null until a stage fails
    struct OpenStage {
        std::string action;
        std::string role;
        util::SteadyClock::time_point began;
    };
    std::optional<OpenStage> open_stage_;
};

// Replaces every secret in every string of `value` (keys included), in place.
void redact_json(nlohmann::json& value, const util::Redactor& redactor);

}  // namespace pdctl::ops
