#pragma once
// The engine's only output channel, owned by the engine that emits to it; report/ implements it.
// Implementations: plain timestamped lines (CI, pipes), JSON Lines
// (--json), a live view updated in place (terminals). The engine never prints.

#include <string>
#include <vector>

#include "pdctl/engine/unit_progress.hpp"
#include "pdctl/plan/plan.hpp"
#include "pdctl/util/exit_code.hpp"

namespace pdctl::engine {

using Duration = std::chrono::milliseconds;

// Why a stage did not become ready, with what the operator needs to act.
struct StageFailure {
    std::string role;
    std::string node;
    std::string address;
    int rank = -1;
    std::string reason;  // "exited (code 1)", "gate timed out after 2m", "start command failed: ..."
    std::vector<std::string> log_tail;
    std::string hint;
    // Other units' log lines that explain it: for a request that failed on the KV path, what the
    // prefill and decode rank 0 wrote about it ("decode rank 0 on n5" -> its lines naming the error).
    struct RelatedLog {
        std::string unit;
        std::vector<std::string> lines;
    };
    std::vector<RelatedLog> related_logs;
};

struct RunSummary {
    std::string verb;
    ExitCode code = ExitCode::kOk;
    std::string message;
    Duration elapsed{0};
    std::vector<std::string> cleaned_up;  // roles stopped after a failure
};

class Reporter {
  public:
    virtual ~Reporter() = default;
    virtual void run_begin(const std::string& verb, const plan::Plan& plan) = 0;
    virtual void stage_begin(const std::string& verb, const plan::Stage& stage) = 0;
    virtual void stage_skipped(const plan::Stage& stage, const std::string& why) = 0;
    virtual void unit_done(const std::string& verb, const plan::Unit& unit, const std::string& detail) = 0;
    virtual void gate_waiting(const plan::Stage& stage, const std::string& last_answer, Duration elapsed) = 0;
    // While a stage waits on its gate: a unit's start-up phase read from its log, on every progress
    // poll (progress.changed() says whether anything moved). Advisory; the default ignores it.
    virtual void unit_progress(const plan::Stage& /*stage*/, const plan::Unit& /*unit*/,
                               const UnitProgress& /*progress*/) {}
    virtual void stage_ready(const plan::Stage& stage, Duration elapsed) = 0;
    virtual void stage_failed(const StageFailure& failure, Duration elapsed) = 0;
    virtual void note(const std::string& message) = 0;
    virtual void run_end(const RunSummary& summary) = 0;
};

}  // namespace pdctl::engine
